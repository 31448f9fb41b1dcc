"""Claim, fenced append and owners (docs/architecture.md "One owner per table"), the
same tests on every store; then what only a shared store must show: a batch with
refusals, concurrent workers, expiry by one worker at a time on the database's clock."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import asyncpg
import pytest

from hollywood_gin.tables.store import FIRST_EPOCH, NotOwner, SeatRecord, TableStore
from tests.loopclock import loop_clock
from tests.tables.stores import make_store, pg_url, postgres, record, store_kind

__all__ = ["pg_url", "postgres", "store_kind"]  # fixtures


async def opened(kind: str, tmp_path: Path) -> TableStore:
    store = make_store(kind, tmp_path / "s.sqlite3")
    await store.open()
    return store


@pytest.mark.anyio
async def test_a_claim_takes_a_new_epoch_and_reads_the_table(
    store_kind: str, tmp_path: Path
) -> None:
    store = await opened(store_kind, tmp_path)
    try:
        await store.create(record("t1"))
        await store.append("t1", 1, [{"event": "a"}], 120.0, FIRST_EPOCH)
        claimed = await store.claim("t1", "worker-b")
        assert claimed is not None
        epoch, got = claimed
        assert epoch == FIRST_EPOCH + 1
        assert [e["event"] for e in got.log] == ["start", "a"]
        assert got.seats[0].name == "Ann" and got.last_active == 120.0
        assert await store.claim("nowhere", "worker-b") is None
        again = await store.claim("t1", "worker-c")
        assert again is not None and again[0] == FIRST_EPOCH + 2
    finally:
        await store.close()


@pytest.mark.anyio
async def test_an_append_of_an_older_epoch_is_refused_and_leaves_nothing(
    store_kind: str, tmp_path: Path
) -> None:
    store = await opened(store_kind, tmp_path)
    try:
        await store.create(record("t1"))
        claimed = await store.claim("t1", "worker-b")
        assert claimed is not None
        new = claimed[0]
        with pytest.raises(NotOwner):
            await store.append("t1", 1, [{"event": "stale"}], 130.0, FIRST_EPOCH)
        with pytest.raises(NotOwner):
            await store.save_seats("t1", [SeatRecord("Eve", "e" * 64)], FIRST_EPOCH)
        await store.append("t1", 1, [{"event": "owner"}], 140.0, new)
        after = await store.claim("t1", "reader")
        assert after is not None
        assert [e["event"] for e in after[1].log] == ["start", "owner"]
        assert [s.name for s in after[1].seats] == ["Ann"]
    finally:
        await store.close()


@pytest.mark.anyio
async def test_owners_tells_each_tables_epoch_and_leaves_out_the_gone(
    store_kind: str, tmp_path: Path
) -> None:
    store = await opened(store_kind, tmp_path)
    try:
        await store.create(record("t1"))
        await store.create(record("t2"))
        await store.claim("t2", "worker-b")
        await store.delete("t1")
        assert await store.owners(["t1", "t2", "t3"]) == {"t2": FIRST_EPOCH + 1}
    finally:
        await store.close()


# --- PostgreSQL only --------------------------------------------------------------


def pg(url: str, owner: str) -> TableStore:
    return make_store("postgres " + url, Path("-"))


@pytest.mark.anyio
async def test_one_fenced_statement_per_batch_refuses_only_the_stale_appends(pg_url: str) -> None:
    a, b = pg(pg_url, "a"), pg(pg_url, "b")
    await a.open()
    await b.open()
    try:
        for i in range(6):
            await a.create(record(f"t{i}"))
        await b.claim("t1", "b")
        await b.claim("t4", "b")
        commits = a.commits  # type: ignore[attr-defined]
        results = await asyncio.gather(
            *(a.append(f"t{i}", 1, [{"event": "x", "i": i}], 1.0, FIRST_EPOCH) for i in range(6)),
            return_exceptions=True,
        )
        assert [type(r).__name__ for r in results] == [
            "NoneType", "NotOwner", "NoneType", "NoneType", "NotOwner", "NoneType"
        ]  # fmt: skip
        # Queued together, so fewer statements than appends (group commit).
        assert a.commits - commits <= 2  # type: ignore[attr-defined]
        con = await asyncpg.connect(pg_url)
        try:
            rows = await con.fetch(
                "SELECT table_id, count(*) AS n, max(seq) AS top FROM events GROUP BY table_id"
            )
        finally:
            await con.close()
        counts = {r["table_id"]: (r["n"], r["top"]) for r in rows}
        assert counts == {f"t{i}": ((1, 0) if i in (1, 4) else (2, 1)) for i in range(6)}
    finally:
        await a.close()
        await b.close()


@pytest.mark.anyio
async def test_appends_made_while_a_commit_gathers_join_it(pg_url: str) -> None:
    """With a gathering delay, an append made while the idle writer waits goes into the
    same statement as the one that woke it: one commit for both
    (docs/architecture.md "Group commit")."""
    from hollywood_gin.tables.postgres_store import PostgresStore

    store = PostgresStore(pg_url, owner="a", gather_seconds=0.5)
    await store.open()
    try:
        for i in range(2):
            await store.create(record(f"g{i}"))
        commits = store.commits
        first = asyncio.ensure_future(store.append("g0", 1, [{"event": "x"}], 1.0, FIRST_EPOCH))
        await asyncio.sleep(0)  # the writer wakes and gathers
        await asyncio.sleep(0)
        assert store.appends.busy
        second = store.append("g1", 1, [{"event": "x"}], 1.0, FIRST_EPOCH)
        await asyncio.gather(first, second)
        assert store.commits - commits == 1
        assert store.writes == 2
    finally:
        await store.close()


async def waits_on_a_lock(connection: asyncpg.Connection) -> None:
    """Until a session of the database waits on a lock (what the test holds). Asked
    outside any transaction: within one, the statistics are read once and kept."""
    ends = time.monotonic() + 60  # a bound on a hang, not a margin
    query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
    while not await connection.fetchval(query):  # each ask a round trip: the pause
        assert time.monotonic() < ends, "no session waits on the lock"


@pytest.mark.anyio
async def test_appends_made_during_a_commit_wait_for_the_gathering_delay_too(pg_url: str) -> None:
    """The delay is waited before every commit, not only when the writer was idle: an
    append that arrived while a commit was under way waits for later ones to join it,
    where it used to go alone right after that commit (batches of one at a steady low
    load). The loop's clock is the test's (`loop_clock`): the delays end when the test
    says, however long the machine takes between the steps."""
    from hollywood_gin.tables.postgres_store import PostgresStore

    store = PostgresStore(pg_url, owner="a", gather_seconds=1.0)
    await store.open()
    blocker = await asyncpg.connect(pg_url)
    watcher = await asyncpg.connect(pg_url)
    try:
        for i in range(3):
            await store.create(record(f"d{i}"))
        commits = store.commits
        # The first commit waits for a lock on its table's row.
        hold = blocker.transaction()
        await hold.start()
        await blocker.execute("SELECT 1 FROM tables WHERE id = 'd0' FOR UPDATE")
        with loop_clock() as clock:
            first = asyncio.ensure_future(store.append("d0", 1, [{"event": "x"}], 1.0, FIRST_EPOCH))
            await clock.advance(1.0)  # gathered: committing
            await waits_on_a_lock(watcher)  # and blocked
            assert not first.done() and store.commits == commits
            second = asyncio.ensure_future(
                store.append("d1", 1, [{"event": "x"}], 1.0, FIRST_EPOCH)
            )
            await hold.rollback()
            await first
            for _ in range(5):
                await asyncio.sleep(0)
            # The first commit is done; the second, come during it, waits its delay.
            assert store.commits - commits == 1 and not second.done()
            third = store.append("d2", 1, [{"event": "x"}], 1.0, FIRST_EPOCH)
            await clock.advance(1.0)
            await asyncio.gather(second, third)
        assert store.commits - commits == 2
    finally:
        await watcher.close()
        await blocker.close()
        await store.close()


@pytest.mark.anyio
async def test_a_batch_short_of_its_appends_waits_for_them_up_to_its_bound(pg_url: str) -> None:
    """With `gather_appends`, a batch of fewer appends waits on after the delay, and
    goes as soon as the last one it waits for arrives; alone, it goes at its bound
    (docs/architecture.md "Group commit": batches that keep their size when more workers share
    the load)."""
    from hollywood_gin.tables.postgres_store import PostgresStore

    store = PostgresStore(
        pg_url, owner="a", gather_seconds=0.0, gather_appends=3, gather_max_seconds=30.0
    )
    await store.open()
    try:
        for i in range(3):
            await store.create(record(f"k{i}"))
        commits = store.commits
        first = asyncio.ensure_future(store.append("k0", 1, [{"event": "x"}], 1.0, FIRST_EPOCH))
        second = asyncio.ensure_future(store.append("k1", 1, [{"event": "x"}], 1.0, FIRST_EPOCH))
        await asyncio.sleep(0.5)
        assert not first.done() and not second.done()  # two of three: waiting
        assert store.commits == commits
        third = store.append("k2", 1, [{"event": "x"}], 1.0, FIRST_EPOCH)
        await asyncio.wait_for(asyncio.gather(first, second, third), 10)  # not the 30 s bound
        assert store.commits - commits == 1 and store.writes == 3
    finally:
        await store.close()
    # Alone, an append goes once its oldest has waited the bound.
    store = PostgresStore(
        pg_url, owner="a", gather_seconds=0.0, gather_appends=3, gather_max_seconds=0.2
    )
    await store.open()
    try:
        await store.append("k0", 2, [{"event": "y"}], 1.0, FIRST_EPOCH)
        assert store.commits == 1 and store.writes == 1
    finally:
        await store.close()


@pytest.mark.anyio
async def test_calls_given_up_on_a_silent_database_never_shrink_the_pool(pg_url: str) -> None:
    """Store calls given up (`bounded.within`) on connections whose server does not
    answer (the backends paused: SIGSTOP, as a partition or a frozen VM) must not keep
    those connections: asyncpg waits for the cancelled query's end before it hands a
    connection out again, so with every one of them so, every move was refused while
    the health check passed (docs/scale-out.md "What happens when…"). A connection whose call
    was given up is closed and the next call connects afresh; an append given up does not hold
    the next one."""
    from hollywood_gin.tables.bounded import within
    from hollywood_gin.tables.postgres_store import PostgresStore

    store = PostgresStore(pg_url, owner="a", pool_size=2)
    await store.open()
    admin = await asyncpg.connect(pg_url)
    stopped: list[int] = []
    try:
        for name in ("t1", "t2"):
            await store.create(record(name))
        # Both of the pool's connections open: two calls at once; and the appends' own.
        await asyncio.gather(*(store.sessions.fetch("SELECT pg_sleep(0.2)") for _ in range(2)))
        await store.append("t1", 1, [{"event": "x"}], 1.0, FIRST_EPOCH)
        rows = await admin.fetch(
            "SELECT pid FROM pg_stat_activity"
            " WHERE application_name = 'hollywood-gin' AND datname = current_database()"
        )
        assert len(rows) == 3
        for row in rows:
            os.kill(row["pid"], signal.SIGSTOP)
            stopped.append(row["pid"])
        # Two calls at once, so each of the pool's paused connections is given up.
        given_up = await asyncio.gather(
            *(within(store.owners(["t1"]), 0.5) for _ in range(2)), return_exceptions=True
        )
        assert all(isinstance(g, TimeoutError) for g in given_up), given_up
        with pytest.raises(TimeoutError):
            await within(store.append("t1", 2, [{"event": "x"}], 1.0, FIRST_EPOCH), 0.5)
        # The backends still paused: the pool serves on new connections.
        assert await within(store.owners(["t1", "t2"]), 5.0) == {
            "t1": FIRST_EPOCH,
            "t2": FIRST_EPOCH,
        }
        await within(store.append("t2", 1, [{"event": "y"}], 2.0, FIRST_EPOCH), 5.0)
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        await admin.close()
        await store.close()


@pytest.mark.anyio
async def test_racing_claims_and_appends_never_fork_a_log(pg_url: str) -> None:
    """Two workers claim one table back and forth while each appends as fast as it can:
    every append is either refused or stored, and the log stays count = max(seq)+1."""

    async def worker(store: TableStore, name: str, acked: list[int]) -> None:
        for _ in range(15):
            claimed = await store.claim("t", name)
            assert claimed is not None
            epoch, rec = claimed
            seq = len(rec.log)
            for _ in range(5):
                try:
                    await store.append("t", seq, [{"by": name, "seq": seq}], 1.0, epoch)
                except NotOwner:
                    break
                except RuntimeError:  # the other one got in between: a gap check
                    break
                acked.append(seq)
                seq += 1

    a, b = pg(pg_url, "a"), pg(pg_url, "b")
    await a.open()
    await b.open()
    try:
        await a.create(record("t"))
        acked_a: list[int] = []
        acked_b: list[int] = []
        await asyncio.gather(worker(a, "a", acked_a), worker(b, "b", acked_b))
        final = await a.claim("t", "check")
        assert final is not None
        log = final[1].log
        assert [e.get("seq", 0) for e in log] == list(range(len(log)))
        # Every acknowledged append is in the log, by the one who was told so.
        for name, acked in (("a", acked_a), ("b", acked_b)):
            for seq in acked:
                assert log[seq]["by"] == name
        assert len(acked_a) + len(acked_b) == len(log) - 1
    finally:
        await a.close()
        await b.close()


@pytest.mark.anyio
async def test_expiry_runs_on_one_worker_at_a_time_by_the_database_clock(pg_url: str) -> None:
    a, b = pg(pg_url, "a"), pg(pg_url, "b")
    await a.open()
    await b.open()
    try:
        for i in range(30):
            # last_active far in the past, whatever the workers' clocks say.
            await a.create(record(f"old{i}", last_active=1000.0))
        await a.create(record("fresh", last_active=1e12))
        # A worker whose clock is wrong passes a `before` that would expire all:
        # with idle_seconds the database's clock decides.
        gone_a, gone_b = await asyncio.gather(
            a.expire(before=2e12, idle_seconds=3600.0),
            b.expire(before=2e12, idle_seconds=3600.0),
        )
        assert sorted(gone_a + gone_b) == sorted(f"old{i}" for i in range(30))
        assert not (gone_a and gone_b)  # one of them did it all
        assert await a.owners(["fresh"]) == {"fresh": FIRST_EPOCH}
    finally:
        await a.close()
        await b.close()


@pytest.mark.anyio
async def test_a_compacted_log_is_claimed_from_its_base(store_kind: str, tmp_path: Path) -> None:
    store = await opened(store_kind, tmp_path)
    try:
        await store.create(record("t1"))
        entries = [{"event": "a"}, {"event": "snapshot"}, {"event": "b"}]
        await store.append("t1", 1, entries, 120.0, FIRST_EPOCH)
        await store.compact("t1", 2, {1: {"hand": 1, "deck": ["AC"]}})
        await store.drop_compacted()
        claimed = await store.claim("t1", "worker-b")
        assert claimed is not None
        epoch, got = claimed
        assert got.base == 2 and [e["event"] for e in got.log] == ["snapshot", "b"]
        assert await store.hand("t1", 1) == {"hand": 1, "deck": ["AC"]}
        assert await store.hand("t1", 2) is None
        # The log goes on from its end, not from its base.
        with pytest.raises(RuntimeError):
            await store.append("t1", 2, [{"event": "again"}], 130.0, epoch)
        await store.append("t1", 4, [{"event": "c"}], 130.0, epoch)
        again = await store.claim("t1", "worker-c")
        assert again is not None and [e["event"] for e in again[1].log] == [
            "snapshot",
            "b",
            "c",
        ]
    finally:
        await store.close()
