"""The registry and hub without any web layer: the path of a move, restarts, expiry."""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.events import ActionTaken
from hollywood_gin.tables.errors import StoreUnavailable, TableFull, UnknownTable
from hollywood_gin.tables.hub import Connection
from hollywood_gin.tables.lifecycle import expire, start_expiry
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.table import Table
from tests.tables.faults import FailingStore
from tests.tables.helpers import (
    HAND_OPTIONS,
    INDEX_DECK,
    SEAT0_CARDS,
    gin_deck,
    registry_on,
    snapshot,
    two_seats,
)
from tests.tables.memory_store import MemoryStore
from tests.wire import playable, wire


class FakeClock:
    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_registry(store: MemoryStore | SqliteStore | None = None, **kw: Any) -> Registry:
    return registry_on(store or MemoryStore(), **kw)


def versions(conn: Connection) -> list[int]:
    return [orjson.loads(f)["version"] for f in conn.pending()]


@pytest.mark.anyio
async def test_create_join_full_unknown() -> None:
    registry = make_registry()
    table, token = await registry.create(HAND_OPTIONS, None)
    assert registry.get(table.id) is table
    assert registry.seat_for_token(table.id, token) == 0
    assert table.status == "waiting" and table.version == 0
    assert [p["name"] for p in registry.presence.players(table)] == ["Player 1"]
    seat, token1 = await registry.join(table.id, None)
    assert seat == 1 and registry.seat_for_token(table.id, token1) == 1
    assert table.status == "playing" and table.version == 1
    with pytest.raises(TableFull):
        await registry.join(table.id, "Cy")
    with pytest.raises(UnknownTable):
        await registry.join("nope", "Cy")
    assert registry.get("nope") is None and registry.seat_for_token("nope", token) is None
    # The store has the seats by hash only.
    stored = registry.store.records[table.id]  # type: ignore[attr-defined]
    assert token not in repr(stored) and token1 not in repr(stored)


@pytest.mark.anyio
async def test_the_store_has_the_move_before_any_connection_sees_it() -> None:
    seen_at_commit: list[list[int]] = []

    class Watching(MemoryStore):
        conn: Connection | None = None

        async def append(
            self, table_id: str, first_seq: int, entries: Any, now: float, epoch: int
        ) -> None:
            if self.conn is not None:
                seen_at_commit.append(versions(self.conn))
            await super().append(table_id, first_seq, entries, now, epoch)

    store = Watching()
    registry = make_registry(store)
    table = await two_seats(registry)
    conn = Connection(0)
    registry.hub.attach(table, conn)
    store.conn = conn
    await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
    await registry.act(table, 0, parse_action({"kind": "pass"}), 2)
    # At each commit the socket had only older versions; right after, the new one.
    assert seen_at_commit == [[1], [2]]
    assert versions(conn) == [3]  # states replace each other while unsent


@pytest.mark.anyio
async def test_a_refused_move_changes_nothing_and_sends_nothing() -> None:
    registry = make_registry()
    table = await two_seats(registry)
    conn = Connection(None)
    registry.hub.attach(table, conn)
    before, sent = snapshot(table), conn.pending()
    for seat, action, version in (
        (0, {"kind": "pass"}, 1),  # not seat 0's turn
        (1, {"kind": "draw_stock"}, 1),  # upcard offer, not a draw
        (1, {"kind": "pass"}, 0),  # stale
        (1, {"kind": "discard", "card": "AC"}, 1),
    ):
        with pytest.raises(RuleError):
            await registry.act(table, seat, parse_action(action), version)
        assert snapshot(table) == before
    assert conn.pending() == sent
    assert registry.store.commits == 3  # type: ignore[attr-defined]  # create, seats, deal


@pytest.mark.anyio
async def test_a_failed_commit_undoes_the_move() -> None:
    store = FailingStore()
    registry = make_registry(store)
    table = await two_seats(registry)
    conn = Connection(1)
    registry.hub.attach(table, conn)
    before, sent = snapshot(table), conn.pending()
    store.failing = {"append"}
    with pytest.raises(StoreUnavailable) as refused:
        await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
    assert isinstance(refused.value.__cause__, OSError)
    assert snapshot(table) == before and conn.pending() == sent
    store.failing.clear()
    await registry.act(table, 1, parse_action({"kind": "pass"}), 1)  # the same move, now durable
    assert table.version == 2


@pytest.mark.anyio
async def test_a_card_order_is_written_later_and_a_failed_write_is_tried_again() -> None:
    """Issue 41: an order is shown at once and written later (not once per `arrange`);
    a write that fails leaves it waiting for the next, and a restart rebuilds the
    order last written."""
    store = FailingStore()
    registry = make_registry(store)
    table = await two_seats(registry)
    mine = wire(table.view(0))["hand"]["my_cards"]
    for n in range(20):
        await registry.arrange(table, 0, mine[n % 10 :] + mine[: n % 10])
    await registry.arrange(table, 0, sorted(mine))
    assert wire(table.view(0))["hand"]["my_cards"] == sorted(mine)  # shown at once
    assert store.records[table.id].seats[0].order is None  # nothing written yet
    assert registry.writer.unsaved(table) and registry.orders.pending() == 1
    store.failing = {"save_seats"}
    await registry.orders.flush(table)
    assert registry.writer.unsaved(table) and registry.orders.pending() == 1  # to be tried again
    store.failing.clear()
    await registry.orders.flush(table)
    assert not registry.writer.unsaved(table)
    stored = store.records[table.id].seats[0].order
    assert stored is not None and stored["cards"] == sorted(mine)
    before = snapshot(table)
    again = make_registry(store)
    await again.load()
    rebuilt = again.get(table.id)
    assert rebuilt is not None and snapshot(rebuilt) == before
    await registry.close()


@pytest.mark.anyio
async def test_a_card_order_goes_with_the_next_action_or_at_close() -> None:
    store = MemoryStore()
    registry = make_registry(store)
    table = await two_seats(registry)
    cards = [wire(table.view(s))["hand"]["my_cards"] for s in (0, 1)]
    await registry.arrange(table, 0, sorted(cards[0]))
    await registry.act(table, 1, parse_action({"kind": "pass"}), table.version)
    assert store.records[table.id].seats[0].order["cards"] == sorted(cards[0])  # type: ignore[index]
    await registry.arrange(table, 1, sorted(cards[1], reverse=True))
    assert store.records[table.id].seats[1].order is None
    await registry.close()  # a graceful shut-down writes what waits
    assert store.records[table.id].seats[1].order["cards"] == sorted(cards[1], reverse=True)  # type: ignore[index]
    again = make_registry(store)
    await again.load()
    rebuilt = again.get(table.id)
    assert rebuilt is not None and snapshot(rebuilt) == snapshot(table)


@pytest.mark.anyio
async def test_a_restart_rebuilds_every_table_exactly() -> None:
    store = MemoryStore()
    registry = make_registry(store)
    table = await two_seats(registry)
    waiting, waiting_token = await registry.create({"scoring": "hollywood"}, "Solo")
    await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
    await registry.act(table, 0, parse_action({"kind": "take_upcard"}), 2)
    await registry.arrange(table, 0, list(reversed(wire(table.view(0))["hand"]["my_cards"])))
    await registry.act(table, 0, parse_action({"kind": "discard", "card": SEAT0_CARDS[0]}), 3)
    again = make_registry(store)
    assert await again.load() == 2
    rebuilt = again.get(table.id)
    assert rebuilt is not None
    assert snapshot(rebuilt) == snapshot(table)
    assert [p["name"] for p in again.presence.players(rebuilt)] == ["Ann", "Bob"]
    assert again.seat_for_token(waiting.id, waiting_token) == 0
    rebuilt_waiting = again.get(waiting.id)
    assert rebuilt_waiting is not None and rebuilt_waiting.status == "waiting"
    # And play goes on from there, stored as before.
    await again.act(rebuilt, 1, parse_action({"kind": "draw_stock"}), 4)
    assert rebuilt.version == 5 and len(store.records[table.id].log) == len(rebuilt.match.log)


@pytest.mark.anyio
async def test_expiry_removes_idle_tables_only(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "hollywood_gin.tables")

    clock = FakeClock(1_000.0)
    store = MemoryStore()
    registry = make_registry(store, clock=clock)
    idle, _ = await registry.create(HAND_OPTIONS, "Idle")
    busy = await two_seats(registry)
    watched, _ = await registry.create(HAND_OPTIONS, "Watched")
    conn = Connection(None)
    registry.hub.attach(watched, conn)
    clock.now = 1_090.0
    await registry.act(busy, 1, parse_action({"kind": "pass"}), 1)
    assert await expire(registry) == []  # nobody idle for 100 s yet
    clock.now = 1_150.0
    # idle: 150 s; busy: 60 s; watched: idle 150 s but a socket is open.
    assert await expire(registry) == [idle.id]
    assert registry.get(idle.id) is None and idle.id not in store.records
    assert registry.get(busy.id) is busy and registry.get(watched.id) is watched
    clock.now = 1_300.0
    registry.hub.detach(watched, conn)
    assert sorted(await expire(registry)) == sorted([busy.id, watched.id])
    assert len(registry) == 0 and store.records == {}
    lines = [r.getMessage() for r in caplog.records]
    assert sum("expired" in line for line in lines) == 3
    assert sum("created" in line for line in lines) == 3
    assert any("seat 1 taken" in line for line in lines)


@pytest.mark.anyio
async def test_each_change_encodes_one_state_per_seat_not_per_connection() -> None:
    registry = make_registry()
    table = await two_seats(registry)
    conns = [Connection(0) for _ in range(3)] + [Connection(1) for _ in range(2)]
    conns += [Connection(None) for _ in range(4)]
    for conn in conns:
        registry.hub.attach(table, conn)
    before = registry.hub.encodings
    await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
    assert registry.hub.encodings - before == 3  # seat 0, seat 1, spectators
    assert all(versions(c)[-1] == 2 for c in conns)
    frames = {c.seat: c.pending()[-1] for c in conns}
    assert all(c.pending()[-1] is frames[c.seat] for c in conns)  # the same bytes object


@pytest.mark.anyio
async def test_hand_over_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "hollywood_gin.tables")

    registry = make_registry()
    table = await two_seats(registry, decks=[gin_deck()])
    await registry.act(table, 1, parse_action({"kind": "take_upcard"}), 1)
    await registry.act(table, 1, parse_action({"kind": "knock", "discard": "KS"}), 2)
    assert (await registry.hand_record(table.id, 1))["result"]["kind"] == "gin"
    assert any("hand 1 over" in r.getMessage() for r in caplog.records)


def first_legal(view: dict[str, Any], strength: str, rng: random.Random | None) -> dict[str, Any]:
    """A test-only policy: the computer plays the first legal action."""
    legal: list[dict[str, Any]] = playable(view["legal"])
    return legal[0]


async def play_against_computer(registry: Registry, table: Table, rng: random.Random) -> int:
    """A person (seat 0) plays random legal moves until the match is over; return moves."""
    moves = 0
    for _ in range(20_000):
        if table.status == "match_over":
            return moves
        legal = playable(wire(table.match.view(0))["legal"])
        if not legal:
            await asyncio.sleep(0.001)  # the computer's turn: let its driver run
            continue
        # Knock whenever allowed, so that hands end; otherwise any legal move.
        knocks = [a for a in legal if a["kind"] == "knock"]
        try:
            await registry.act(
                table, 0, parse_action(knocks[0] if knocks else rng.choice(legal)), table.version
            )
            moves += 1
        except RuleError as exc:
            assert exc.code == "stale_version"  # the computer moved first
    raise AssertionError("the match did not end")


@pytest.mark.anyio
@pytest.mark.parametrize("scoring", ["hand", "game"])
async def test_the_computer_plays_through_the_same_path(scoring: str) -> None:
    registry = make_registry(policy=first_legal)
    table, _ = await registry.create({"scoring": scoring}, "Ann", computer="easy", first_dealer=1)
    assert table.status == "playing" and registry.presence.players(table)[1]["connected"] is True
    conn = Connection(None)
    registry.hub.attach(table, conn)
    await play_against_computer(registry, table, random.Random(5))
    log = table.match.log
    computer_moves = [e for e in log if isinstance(e, ActionTaken) and e.seat == 1]
    assert computer_moves, "the computer never moved"
    # Every computer move went through the store, like a person's.
    assert len(registry.store.records[table.id].log) == len(log)  # type: ignore[attr-defined]
    # It agrees to the rematch by itself.
    for _ in range(200):
        if table.match.ready[1]:
            break
        await asyncio.sleep(0)
    assert table.match.ready[1] is True
    await registry.close()


@pytest.mark.anyio
async def test_the_real_policy_plays_a_hand() -> None:
    registry = make_registry(computer_rng=random.Random(3))  # hollywood_gin.bots.choose_action
    table, _ = await registry.create({"scoring": "hand"}, "Ann", computer="easy")
    await play_against_computer(registry, table, random.Random(8))
    assert table.status == "match_over"
    await registry.close()


@pytest.mark.anyio
async def test_a_computer_can_join_a_waiting_table_and_restarts_keep_it() -> None:
    store = MemoryStore()
    registry = make_registry(store, policy=first_legal, computer_delay=3600.0)
    table, _ = await registry.create(HAND_OPTIONS, "Ann", first_dealer=0)
    assert await registry.seat_computer(table.id, "normal") == 1
    with pytest.raises(TableFull):
        await registry.seat_computer(table.id, "normal")
    assert registry.presence.players(table)[1]["name"] == "Computer (normal)"
    await registry.close()
    again = make_registry(store, policy=first_legal, computer_delay=3600.0)
    await again.load()
    rebuilt = again.get(table.id)
    assert rebuilt is not None and again.presence.players(rebuilt)[1]["computer"] == "normal"
    # Seat 1 (the computer) has the upcard offer: its driver is waiting to move.
    mine = again.computer.seats(rebuilt.id)
    assert mine is not None and mine.task is not None and not mine.task.done()
    await again.close()


@pytest.mark.anyio
async def test_a_table_whose_log_cannot_be_replayed_is_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryStore()
    registry = make_registry(store)
    good = await two_seats(registry)
    bad = await two_seats(registry)
    # A log that describes no possible match: seat 0 acting out of turn.
    store.records[bad.id].log.append({"event": "action", "seat": 0, "action": {"kind": "pass"}})
    again = make_registry(store)
    assert await again.load() == 1
    assert again.get(good.id) is not None and again.get(bad.id) is None
    assert bad.id in store.records  # kept on disk
    assert any("could not be rebuilt" in r.getMessage() for r in caplog.records)


@pytest.mark.anyio
async def test_two_people_racing_for_the_last_seat() -> None:
    registry = make_registry()
    table, _ = await registry.create(HAND_OPTIONS, "Ann")
    results = await asyncio.gather(
        registry.join(table.id, "Bob"), registry.join(table.id, "Cy"), return_exceptions=True
    )
    assert registry.presence.players(table)[0]["name"] == "Ann" and len(table.seats) == 2
    assert table.version == 1  # dealt once
    assert sum(isinstance(r, TableFull) for r in results) == 1
    assert sum(isinstance(r, tuple) for r in results) == 1


@pytest.mark.anyio
async def test_the_expiry_sweep_runs_by_itself() -> None:
    clock = FakeClock()
    registry = make_registry(clock=clock, expiry_seconds=10.0)
    table, _ = await registry.create(HAND_OPTIONS, "Ann")
    clock.now += 11.0
    sweep = start_expiry(registry, 0.01)
    for _ in range(500):  # bounded: at most about 5 s
        if registry.get(table.id) is None:
            break
        await asyncio.sleep(0.01)
    assert registry.get(table.id) is None
    sweep.cancel()
    await registry.close()


@pytest.mark.anyio
async def test_a_failing_policy_still_lets_the_game_go_on() -> None:
    def broken(view: dict[str, Any], strength: str, rng: random.Random | None) -> dict[str, Any]:
        raise ValueError("policy bug")

    registry = make_registry(policy=broken)
    table, _ = await registry.create(HAND_OPTIONS, "Ann", computer="easy", first_dealer=0)
    for _ in range(500):  # the computer (seat 1, non-dealer) answers the upcard offer
        if table.version > 1:
            break
        await asyncio.sleep(0.01)
    moves = [e for e in table.match.log if isinstance(e, ActionTaken)]
    assert moves and moves[0].seat == 1  # it moved, with legal[0] in place of the policy
    await registry.close()


@pytest.mark.anyio
async def test_the_computer_is_fed_every_state_of_its_seat() -> None:
    """The real computer remembers what its seat was shown: here, that the person
    took the upcard, which no later view alone would tell it once it is buried."""

    # A long delay: the computer observes but does not move during the test.
    registry = make_registry(computer_delay=3600.0)
    table, _ = await registry.create(
        {"scoring": "hand"}, "Ann", computer="normal", test_decks=[INDEX_DECK], first_dealer=1
    )
    upcard = INDEX_DECK[20]  # docs/rules.md "The deal": card 20 is the upcard
    await registry.act(table, 0, parse_action({"kind": "take_upcard"}), table.version)
    # Ann (seat 0, the non-dealer) now throws another card on top of it.
    discard = next(a for a in wire(table.match.view(0))["legal"] if a["kind"] == "discard")
    await registry.act(table, 0, parse_action(discard), table.version)
    mine = registry.computer.seats(table.id)
    bot = None if mine is None else mine.bot
    assert bot is not None
    seen = bot.memory.seen(table.view(1))
    assert seen is not None
    assert seen.opp_has & (1 << Card.parse(upcard).index), "the upcard pick was forgotten"
    await registry.close()


@pytest.mark.anyio
async def test_arranging_keeps_the_stored_size_and_survives_a_restart(tmp_path: Path) -> None:
    """One log row per `arrange` once grew a table by gigabytes a day."""

    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path)
    await store.open()
    registry = make_registry(store)
    table = await two_seats(registry)
    mine = wire(table.view(1))["hand"]["my_cards"]
    await registry.arrange(table, 1, sorted(mine))

    def stored() -> tuple[int, int]:
        with sqlite3.connect(path) as db:
            (events,) = db.execute("SELECT COUNT(*) FROM events").fetchone()
            (size,) = db.execute("SELECT SUM(LENGTH(seats)) FROM tables").fetchone()
        return int(events), int(size)

    before = stored()
    for i in range(300):
        await registry.arrange(table, 1, mine[i % 10 :] + mine[: i % 10])
    await registry.arrange(table, 1, sorted(mine, reverse=True))
    assert stored() == before
    assert len(table.match.log) == registry.writer.ledger(table).logged
    await registry.act(table, 1, parse_action({"kind": "pass"}), table.version)
    expected = [table.view(s) for s in (0, 1, None)]
    await store.close()

    again_store = SqliteStore(path)
    await again_store.open()
    again = make_registry(again_store)
    assert await again.load() == 1
    rebuilt = again.get(table.id)
    assert rebuilt is not None
    assert [rebuilt.view(s) for s in (0, 1, None)] == expected
    assert wire(rebuilt.view(1))["hand"]["my_cards"] == sorted(mine, reverse=True)
    await again_store.close()
