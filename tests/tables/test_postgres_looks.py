"""PostgreSQL mode: the clocks of tables no worker holds (`hollywood_gin.tables.looks`,
docs/architecture.md "Deadlines nobody holds"). A table played over days keeps its
next look in its row; every worker's sweep claims the due ones nobody holds, each at
the epoch it read, so of two workers sweeping at once one does what is due, once.
Real PostgreSQL, a clock the test moves (a day of 100 s)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

asyncpg = pytest.importorskip("asyncpg")
pytestmark = pytest.mark.anyio

from hollywood_gin.tables.ownership import Shared  # noqa: E402
from hollywood_gin.tables.postgres_store import PostgresStore  # noqa: E402
from hollywood_gin.tables.registry import Registry  # noqa: E402
from hollywood_gin.tables.store import SeatRecord, TableRecord  # noqa: E402
from hollywood_gin.tables.table import Table  # noqa: E402
from hollywood_gin.web.metrics import Metrics  # noqa: E402
from tests.postgres import pg_url, postgres  # noqa: E402, F401 (fixtures)
from tests.tables.test_postgres_days_push import DAY, days_worker  # noqa: E402

Told = list[tuple[str, str, int]]


def shared(registry: Registry) -> Shared:
    assert isinstance(registry.ownership, Shared)
    return registry.ownership


async def worker(url: str, name: str, now: list[float], told: Told) -> Registry:
    """A worker whose "deadline soon" pushes are noted in `told` (who, table, seat)."""
    registry = await days_worker(url, name, now)
    registry.presence.soon = lambda table, seat: told.append((name, table.id, seat))
    shared(registry).release_seconds = DAY / 10  # let go well before the day is out
    return registry


async def written(registry: Registry) -> None:
    """Until the worker has written the looks it has to (the writes go in the background)."""
    stored = shared(registry).stored
    assert stored is not None
    await stored.close(10.0)


async def row(url: str, table_id: str) -> tuple[float | None, str | None, int]:
    con = await asyncpg.connect(url)
    try:
        r = await con.fetchrow(
            "SELECT next_look, owner, owner_epoch FROM tables WHERE id = $1", table_id
        )
    finally:
        await con.close()
    return r["next_look"], r["owner"], int(r["owner_epoch"])


async def dealt(registry: Registry) -> Table:
    """A table played over days (a day a move), both seated: the first deal asks a
    seat, and the look that follows is written."""
    table, _ = await registry.create({"move_days": 1}, "Ann")
    await registry.join(table.id, "Bob")
    await written(registry)
    return table


async def let_go(registry: Registry, now: list[float]) -> Table:
    """A table played over days (a day a move), both seated, let go when idle."""
    table, _ = await registry.create({"move_days": 1}, "Ann")
    await registry.join(table.id, "Bob")
    now[0] += DAY / 10 + 1
    assert shared(registry).release_idle() == 1
    await written(registry)
    return table


async def sweep_all(*registries: Registry) -> int:
    """Every worker sweeps at once; then each does what its clock has due."""
    claimed = await asyncio.gather(*(shared(r).sweep_once() for r in registries))
    for r in registries:
        await r.presence.tick(wait=True)
        await written(r)
    return sum(claimed)


async def shut(*registries: Registry) -> None:
    for r in registries:
        await r.close()
        await r.store.close()


async def test_the_row_keeps_the_next_look_and_that_nobody_holds_it(pg_url: str) -> None:  # noqa: F811
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    try:
        table, _ = await a.create({"move_days": 1}, "Ann")
        assert (await row(pg_url, table.id))[:2] == (None, "a")  # nothing asked yet
        await a.join(table.id, "Bob")  # the first deal: a seat is asked, for a day
        await written(a)
        deadline = min(h.deadline for h in table.seats if h.deadline is not None)
        # The look is the "deadline soon" push, a quarter of the day before.
        assert (await row(pg_url, table.id))[:2] == (deadline - DAY / 4, "a")
        now[0] += DAY / 10 + 1
        assert shared(a).release_idle() == 1
        await written(a)
        assert (await row(pg_url, table.id))[:2] == (deadline - DAY / 4, None)
    finally:
        await shut(a)


async def test_two_workers_sweeping_at_once_do_a_due_look_once(pg_url: str) -> None:  # noqa: F811
    """The worker that let the table go stops; two others sweep at the same moments:
    one claims the table for its "deadline soon" push, told once; later one claims it
    for its deadline, and the seat asked is away; a look done is not done again."""
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    b, c = await worker(pg_url, "b", now, told), await worker(pg_url, "c", now, told)
    try:
        table = await let_go(a, now)
        await shut(a)  # stopped: nobody holds the table, nobody keeps its clock in memory
        asked = next(s for s, h in enumerate(table.seats) if h.deadline is not None)
        deadline = table.seats[asked].deadline
        assert deadline is not None
        _, _, epoch = await row(pg_url, table.id)
        now[0] = deadline - DAY / 4 - 1
        assert await sweep_all(b, c) == 0  # nothing due yet
        now[0] = deadline - DAY / 4
        assert await sweep_all(b, c) == 1
        assert [(t, s) for _, t, s in told] == [(table.id, asked)]
        holder = next(r for r in (b, c) if r.get(table.id) is not None)
        assert (await row(pg_url, table.id)) == (deadline, holder.owner, epoch + 1)
        assert await sweep_all(b, c) == 0  # done: not claimed again
        # Let go again, its next look (the deadline) kept in the row.
        now[0] += DAY / 10 + 1
        assert shared(holder).release_idle() == 1
        await written(holder)
        assert (await row(pg_url, table.id)) == (deadline, None, epoch + 1)
        now[0] = deadline
        assert await sweep_all(b, c) == 1
        holder = next(r for r in (b, c) if r.get(table.id) is not None)
        held = holder.get(table.id)
        assert held is not None and held.match.presence.absent[asked]
        assert not held.match.presence.absent[1 - asked]
        assert (await row(pg_url, table.id)) == (None, holder.owner, epoch + 2)
        now[0] += 1
        assert await sweep_all(b, c) == 0
        assert len(told) == 1
    finally:
        await shut(b, c)


async def test_a_look_its_holder_let_pass_is_swept_after_a_while(pg_url: str) -> None:  # noqa: F811
    """A worker stopped without letting go (killed): its table's row still names it.
    Its look, once past by `sweep_stale`, is another worker's to do."""
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    b = await worker(pg_url, "b", now, told)
    try:
        table = await dealt(a)
        look, owner, _ = await row(pg_url, table.id)
        assert look is not None and owner == "a"
        # `a` is gone (nothing of it runs any more); its row still says it holds the table.
        shared(b).sweep_stale = DAY / 10
        now[0] = look
        assert await sweep_all(b) == 0
        now[0] = look + shared(b).sweep_stale
        assert await sweep_all(b) == 1
        assert [(w, t) for w, t, _ in told] == [("b", table.id)]
    finally:
        a.presence.looked = None  # `a` stands for a worker killed: it writes nothing more
        await shut(a, b)


async def test_only_one_claim_at_an_epoch(pg_url: str) -> None:  # noqa: F811
    one, two = PostgresStore(pg_url, owner="w1"), PostgresStore(pg_url, owner="w2")
    await one.open()
    await two.open()
    try:
        seats = [SeatRecord("Ann", "h0", deadline=1_500.0), SeatRecord("Bob", "h1")]
        record = TableRecord("L" * 22, {"move_days": 1}, seats, 1.0, 1.0)
        await one.create(record)
        assert await one.save_look(record.table_id, 1, 1_400.0, release=True)
        assert await two.due_looks(1_399.0, 0.0, 10) == []
        assert await two.due_looks(1_400.0, 0.0, 10) == [(record.table_id, 1)]
        won = await asyncio.gather(
            one.claim_at(record.table_id, "w1", 1), two.claim_at(record.table_id, "w2", 1)
        )
        assert sum(w is not None for w in won) == 1
        # Held now (by the winner): not due for anyone until the holder lets it pass long.
        assert await two.due_looks(1_450.0, 1_399.0, 10) == []
        assert await two.due_looks(1_450.0, 1_400.0, 10) == [(record.table_id, 2)]
        # A stale holder's look write is refused; the winner's is kept.
        assert not await one.save_look(record.table_id, 1, None)
        assert await two.save_look(record.table_id, 2, 1_500.0)
        assert await one.leave("w2" if won[1] else "w1") == 1
        assert await two.due_looks(1_500.0, 0.0, 10) == [(record.table_id, 2)]
    finally:
        await one.close()
        await two.close()


async def test_a_damaged_due_table_is_set_aside_and_the_others_claimed(
    pg_url: str,  # noqa: F811
) -> None:
    """A sweep's claim (`claim_due`) and a table's own (`claim`) read a damaged row
    alike: set aside in the claim's transaction, never handed out, the others are."""
    store = PostgresStore(pg_url, owner="w1")
    await store.open()
    con = await asyncpg.connect(pg_url)
    try:
        seats = [SeatRecord("Ann", "h0", deadline=1_500.0), SeatRecord("Bob", "h1")]
        ids = [name * 22 for name in "LMN"]
        for table_id in ids:
            await store.create(TableRecord(table_id, {"move_days": 1}, seats, 1.0, 1.0))
            assert await store.save_look(table_id, 1, 1_400.0, release=True)
        await con.execute("UPDATE tables SET seats = 'not JSON' WHERE id = $1", ids[1])
        claimed = await store.claim_due(1_400.0, 0.0, 10, "w1", [])
        assert sorted(r.table_id for _, r in claimed) == [ids[0], ids[2]]
        assert list(await store.set_aside_tables()) == [ids[1]]
        await con.execute("UPDATE tables SET seats = 'not JSON' WHERE id = $1", ids[2])
        assert await store.claim(ids[2], "w1") is None
        assert list(await store.set_aside_tables()) == [ids[1], ids[2]]
        assert await store.claim(ids[0], "w1") is not None
    finally:
        await con.close()
        await store.close()


async def as_version_1(url: str) -> None:
    """The database as a worker of layout version 1 left it: no `next_look`."""
    con = await asyncpg.connect(url)
    try:
        await con.execute("DROP INDEX tables_next_look; ALTER TABLE tables DROP COLUMN next_look")
        await con.execute("UPDATE schema_version SET version = 1")
    finally:
        await con.close()


async def test_a_database_of_version_1_gets_the_looks_of_its_deadlines(pg_url: str) -> None:  # noqa: F811
    """Brought up from the layout before `next_look`: each stored table's first deadline
    still ahead becomes its look (its "deadline soon" moment, a quarter of a day
    before, while that is ahead), so the sweep finds the tables stored before."""
    store = PostgresStore(pg_url, owner="old")
    await store.open()
    ahead, past = 4_000_000_000.0, 1_000.0
    for name, deadline in (("A", ahead), ("P", past), ("N", None)):
        seats = [SeatRecord("Ann", "h0", deadline=deadline), SeatRecord("Bob", "h1")]
        await store.create(TableRecord(name * 22, {"move_days": 1}, seats, 1.0, 1.0))
    await store.close()
    await as_version_1(pg_url)
    store = PostgresStore(pg_url, owner="new")
    await store.open()
    try:
        soon = ahead - 86_400 / 4
        assert await store.due_looks(soon - 1, 0.0, 10) == []
        assert await store.due_looks(soon, soon - 1, 10) == []  # its worker still holds it
        await store.leave("old")
        assert await store.due_looks(soon, 0.0, 10) == [("A" * 22, 1)]
    finally:
        await store.close()


async def test_a_claim_after_the_push_does_not_tell_it_again(pg_url: str) -> None:  # noqa: F811
    """The sweep's worker told "deadline soon"; the table's next request reaches another
    worker (the proxy's choice), which claims it: it does not tell it again."""
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    b, c = await worker(pg_url, "b", now, told), await worker(pg_url, "c", now, told)
    try:
        table = await let_go(a, now)
        await shut(a)
        deadline = min(h.deadline for h in table.seats if h.deadline is not None)
        now[0] = deadline - DAY / 4
        assert await sweep_all(b) == 1 and len(told) == 1
        now[0] += 1
        assert await c.find(table.id) is not None  # a request, at another worker
        await c.presence.tick(wait=True)
        assert b.get(table.id) is None or await shared(b).watch_once() == 1
        assert len(told) == 1
    finally:
        await shut(b, c)


async def test_a_request_during_a_sweep_another_worker_won_gets_the_table(
    pg_url: str,  # noqa: F811
) -> None:
    """A request for a table this worker's sweep is claiming at the epoch it read joins
    that claim; when another worker claimed the table first, the request claims it
    anyway: the table is there, not "no such table"."""
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    b = await worker(pg_url, "b", now, told)
    con = await asyncpg.connect(pg_url)
    try:
        table = await let_go(a, now)
        await shut(a)
        now[0] = min(h.deadline for h in table.seats if h.deadline is not None)
        async with con.transaction():  # another worker's claim, its row lock held a while
            await con.execute(
                "UPDATE tables SET owner_epoch = owner_epoch + 1, owner = 'c' WHERE id = $1",
                table.id,
            )
            sweep = asyncio.ensure_future(shared(b).sweep_once())
            for _ in range(500):  # until the sweep's claim waits for the row
                if table.id in shared(b)._claims:
                    break
                await asyncio.sleep(0.01)
            request = asyncio.ensure_future(b.find(table.id))
            await asyncio.sleep(0.05)
        assert await sweep == 0
        found = await request
        assert found is not None and found.id == table.id
        assert (await row(pg_url, table.id))[1:] == ("b", 3)
    finally:
        await con.close()
        await shut(b)


async def test_a_table_of_version_1_still_gets_its_deadline_soon_push(pg_url: str) -> None:  # noqa: F811
    """Brought up from the layout before `next_look`, a table whose "deadline soon" is
    still ahead keeps that moment as its look: the push is told then, by the sweep or
    by the worker a request reached, not taken for one told already."""
    now, told = [time.time()], []
    a = await worker(pg_url, "a", now, told)
    a.presence.seconds_per_day = 86_400.0  # the day the upgrade reckons with
    try:
        table = await dealt(a)
    finally:
        await shut(a)
    asked = next(s for s, h in enumerate(table.seats) if h.deadline is not None)
    deadline = table.seats[asked].deadline
    assert deadline is not None
    await as_version_1(pg_url)
    b = await worker(pg_url, "b", now, told)
    b.presence.seconds_per_day = 86_400.0
    try:
        assert (await row(pg_url, table.id))[0] == deadline - 86_400.0 / 4
        assert await b.find(table.id) is not None  # a request, before the push is due
        now[0] = deadline - 86_400.0 / 4
        await b.presence.tick(wait=True)
        assert told == [("b", table.id, asked)]
    finally:
        await shut(b)


async def waiting(con: Any, count: int) -> None:
    """Until `count` statements wait for a lock (the test's transaction holds a row)."""
    for _ in range(500):
        n = await con.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND datname = current_database()"
        )
        if n >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} waiting statements expected")


async def test_a_look_noted_as_its_holder_settles_is_written_at_the_new_epoch(
    pg_url: str,  # noqa: F811
) -> None:
    """A doubtful table's holder claims it again (settle: a new epoch) while the look it
    just noted is written at the epoch before, refused: the look is written again at
    the new one, else the row keeps a look long past with a live holder, and another
    worker's sweep takes the table from it."""
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    con = await asyncpg.connect(pg_url)
    lock = await asyncpg.connect(pg_url)
    try:
        table = await dealt(a)
        soon, _, _ = await row(pg_url, table.id)
        assert soon is not None
        ledger = shared(a).terms.ledgers[table]
        ledger.doubtful = True
        async with lock.transaction():  # the row held a moment: the claim asks first
            await lock.execute("SELECT 1 FROM tables WHERE id = $1 FOR UPDATE", table.id)
            settle = asyncio.ensure_future(a.ownership.settle(table, ledger))
            await waiting(con, 1)
            now[0] = soon
            await a.presence.tick(wait=True)  # the push told: the next look is the deadline
            await waiting(con, 2)
        await settle
        await written(a)
        look, owner, epoch = await row(pg_url, table.id)
        assert (owner, epoch) == ("a", ledger.epoch) and len(told) == 1
        assert look is not None and look > soon
    finally:
        await con.close()
        await lock.close()
        await shut(a)


async def test_a_sweeps_claim_under_way_at_shut_down_is_left_for_the_others(
    pg_url: str,  # noqa: F811
) -> None:
    """A worker stops while its sweep's claim waits for the row: the claim, which goes
    on, ends before the worker says it holds nothing, so the table is not left named
    after a worker that is gone (another worker's sweep would wait `sweep_stale`)."""
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    b = await worker(pg_url, "b", now, told)
    con = await asyncpg.connect(pg_url)
    lock = await asyncpg.connect(pg_url)
    try:
        table = await let_go(a, now)
        await shut(a)
        now[0] = min(h.deadline for h in table.seats if h.deadline is not None)
        # What the sweep's claim reads held a moment (a row lock it would skip): it waits.
        async with lock.transaction():
            await lock.execute("LOCK TABLE set_aside IN ACCESS EXCLUSIVE MODE")
            sweep = asyncio.ensure_future(shared(b).sweep_once())
            await waiting(con, 1)
            sweep.cancel()  # as closing the worker does
            closing = asyncio.ensure_future(b.close())
            for _ in range(200):  # time for a close that does not wait to end
                if closing.done():
                    break
                await asyncio.sleep(0.01)
        await closing
        claim = shared(b)._sweeping  # ended (it has, with the fix): its outcome is in
        await asyncio.gather(*([claim] if claim else []), return_exceptions=True)
        _, owner, _ = await row(pg_url, table.id)
        assert owner is None
    finally:
        await con.close()
        await lock.close()
        await b.store.close()


async def clone(url: str, table_id: str, count: int) -> list[str]:
    """`count` copies of the stored table (its row and log) under new ids: a backlog."""
    ids = [table_id[:18] + f"{n:04d}" for n in range(count)]
    con = await asyncpg.connect(url)
    try:
        await con.execute(
            "INSERT INTO tables (id, options, seats, created, last_active, owner,"
            " owner_epoch, base_seq, next_look) SELECT c.id, options, seats, created,"
            " last_active, owner, owner_epoch, base_seq, next_look FROM tables,"
            " unnest($2::text[]) AS c(id) WHERE tables.id = $1",
            table_id,
            ids,
        )
        await con.execute(
            "INSERT INTO events (table_id, seq, entry) SELECT c.id, seq, entry FROM events,"
            " unnest($2::text[]) AS c(id) WHERE table_id = $1",
            table_id,
            ids,
        )
    finally:
        await con.close()
    return ids


async def test_two_workers_drain_a_backlog_in_one_interval_each_table_once(
    pg_url: str,  # noqa: F811
) -> None:
    """300 tables fall due while no worker runs (an outage): two workers sweeping at
    once take disjoint batches, a full batch followed by the next at once, so the
    backlog is claimed in one interval, every table once, each "deadline soon" told
    once (three intervals before: both read the same 100 earliest)."""
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    b, c = await worker(pg_url, "b", now, told), await worker(pg_url, "c", now, told)
    try:
        table = await let_go(a, now)
        await shut(a)
        ids = [table.id, *await clone(pg_url, table.id, 299)]
        now[0] = min(h.deadline for h in table.seats if h.deadline is not None) - DAY / 4
        assert await sweep_all(b, c) == 300
        held_b = {t for t in ids if b.get(t) is not None}
        held_c = {t for t in ids if c.get(t) is not None}
        assert not held_b & held_c and len(held_b | held_c) == 300
        # Disjoint: every table the store gave a worker was claimed by it, none lost
        # to the other; four rounds of 100 at most (three full, one to find it empty).
        assert shared(b).swept + shared(c).swept == 300
        assert shared(b).sweep_queries + shared(c).sweep_queries <= 5
        assert sorted(t for _, t, _ in told) == sorted(ids)
        assert await sweep_all(b, c) == 0  # done: not claimed again
        assert len(told) == 300
    finally:
        await shut(b, c)


def warnings_of(caplog: pytest.LogCaptureFixture, what: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.getMessage().startswith(what)
    ]


async def test_failing_sweeps_and_look_writes_are_warned_rate_limited_and_counted(
    pg_url: str,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database refuses (its tables renamed away): the sweep's failure and a look
    write's are logged at warning the first time, then at most once a minute with how
    many failed meanwhile, and counted in the metrics; back, the look is written."""
    caplog.set_level(logging.DEBUG, logger="hollywood_gin")
    now, told = [1_000.0], []
    a = await worker(pg_url, "a", now, told)
    metrics = Metrics()
    metrics.watch(a)
    minute = [0.0]
    shared(a).sweep_failures.clock = lambda: minute[0]
    stored = shared(a).stored
    assert stored is not None
    stored.failures.clock = lambda: minute[0]
    con = await asyncpg.connect(pg_url)
    try:
        table = await dealt(a)
        look, _, _ = await row(pg_url, table.id)
        assert look is not None
        await con.execute("ALTER TABLE tables RENAME TO tables_away")
        for _ in range(3):
            assert await shared(a).sweep_logged() == 0
        assert warnings_of(caplog, "deadline sweep failed") == [
            "deadline sweep failed: UndefinedTableError('relation \"tables\" does not exist')"
        ]
        minute[0] = 59.0
        assert await shared(a).sweep_logged() == 0
        assert len(warnings_of(caplog, "deadline sweep failed")) == 1
        minute[0] = 61.0
        assert await shared(a).sweep_logged() == 0
        said = warnings_of(caplog, "deadline sweep failed")
        assert len(said) == 2 and said[1].startswith(
            "deadline sweep failed 4 times in the last 61 s"
        )
        stored.note(table, look + 1)  # a look moved: written, refused, tried again
        for _ in range(500):
            if stored.failures.count >= 2:
                break
            await asyncio.sleep(0.01)
        assert stored.failures.count >= 2
        assert len(warnings_of(caplog, "writing a table's next look failed")) == 1
        samples = {
            s.name: s.value
            for family in text_string_to_metric_families(
                generate_latest(metrics.collectors).decode()
            )
            for s in family.samples
        }
        assert samples["hollywood_gin_deadline_sweep_failures_total"] == 5
        assert samples["hollywood_gin_look_write_failures_total"] >= 2
        assert samples["hollywood_gin_deadline_sweep_tables_total"] == 0
        await con.execute("ALTER TABLE tables_away RENAME TO tables")
        await written(a)
        assert (await row(pg_url, table.id))[0] == look + 1
    finally:
        await con.close()
        await shut(a)
