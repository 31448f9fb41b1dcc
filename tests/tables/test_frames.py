"""A state frame put together from parts encoded once per change is, byte for byte,
the plain encoding of that seat's state message (`hollywood_gin.tables.frames`)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.bots import Bot
from hollywood_gin.engine.actions import Action, parse_action
from hollywood_gin.tables.hub import Connection, state_message
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.table import Table
from tests.tables.helpers import registry_on
from tests.tables.stores import opened

SEATS = (0, 1, None)


def plain(registry: Registry, table: Table, seat: int | None) -> bytes:
    return orjson.dumps(state_message(table, seat, seating=registry.presence))


def check(registry: Registry, table: Table) -> None:
    frames = registry.hub._state_frames(table)
    for seat in SEATS:
        assert frames.frame(seat) == plain(registry, table, seat), seat


class Clock:
    """A clock that moves only when told: the turn clock's stamps are then the same
    for the frames and for the plain messages they are compared with."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def play(
    options: dict[str, object], seed: int, ending: str | None, spectate: bool, steps: int
) -> tuple[int, str]:
    """Play a match with bots (at most `steps` changes), comparing every seat's frame
    after each change; return the changes compared and the table's status."""
    clock = Clock()
    with tempfile.TemporaryDirectory() as folder:
        async with opened(SqliteStore(Path(folder) / "t.sqlite3")) as store:
            registry = registry_on(store, clock=clock, rng=random.Random(seed))
            return await _play(registry, clock, options, seed, ending, spectate, steps)


async def _play(
    registry: Registry,
    clock: Clock,
    options: dict[str, object],
    seed: int,
    ending: str | None,
    spectate: bool,
    steps: int,
) -> tuple[int, str]:
    table, _ = await registry.create(options, "Ann")
    await registry.join(table.id, "Bob")
    hub = registry.hub
    for seat in (0, 1, None) if spectate else (0,):
        hub.attach(table, Connection(seat))
    bots = (Bot("easy", random.Random(seed + 1)), Bot("easy", random.Random(seed + 2)))
    rng = random.Random(seed + 3)
    compared = 0
    for step in range(steps):
        check(registry, table)
        compared += 1
        if table.status == "match_over":
            break
        clock.now += rng.choice((0.0, 0.4, 1.3))
        if ending is not None and step == 30:
            seat = 0 if table.match.legal(0) else 1
            await registry.act(table, seat, parse_action({"kind": ending}), table.version)
            continue
        seat = next((s for s in (0, 1) if table.match.playable(s)), None)
        if seat is None:  # a hand is over: both seats go on
            for s in (0, 1):
                if table.match.playable(s):
                    await registry.act(table, s, table.match.playable(s)[0], table.version)
            continue
        action: Action = bots[seat].choose(table.match.view(seat))
        await registry.act(table, seat, action, table.version)
    await registry.close()
    return compared, table.status


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("options", "ending"),
    [
        ({"rules": "standard", "scoring": "hollywood", "target": 100}, None),
        ({"rules": "standard", "scoring": "game", "target": 100, "turn_seconds": 30}, None),
        ({"rules": "standard", "scoring": "hollywood", "target": 100}, "resign"),
    ],
)
async def test_frames_are_the_plain_encoding_through_whole_matches(
    options: dict[str, object], ending: str | None
) -> None:
    """Every seat and a spectator, after every change: hands in play, results with
    the deck revealed, the next deal's commitment between hands, a turn clock's
    deadline and time, a match ended by resigning."""
    compared, status = await play(options, 7, ending, spectate=True, steps=5000)
    assert status == "match_over" and compared > 30


@pytest.mark.anyio
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), clocked=st.booleans(), spectate=st.booleans())
async def test_frames_match_for_any_deal(seed: int, clocked: bool, spectate: bool) -> None:
    options: dict[str, object] = {"rules": "standard", "scoring": "game", "target": 100}
    if clocked:
        options["turn_seconds"] = 20
    compared, _ = await play(options, seed, None, spectate, steps=150)
    assert compared > 1


@pytest.mark.anyio
async def test_a_broadcast_encodes_the_shared_parts_once(tmp_path: Path) -> None:
    """Seats whose views share the table's, hand's and sheet's parts share one
    encoding of them: a second seat's frame adds only its own part."""
    store = SqliteStore(tmp_path / "t.sqlite3")
    await store.open()
    registry = registry_on(store)
    table, _ = await registry.create({"rules": "standard"}, "Ann")
    await registry.join(table.id, "Bob")
    frames = registry.hub._state_frames(table)
    frames.frame(0)
    shared = frames._shared
    frames.frame(1)
    frames.frame(None)
    assert frames._shared is shared
    await registry.close()
    await store.close()


def test_legal_bytes_are_the_plain_encoding_knocks_included() -> None:
    """Each action's bytes encoded once, and a knock's with its deadwood, give the
    bytes of `legal` as `View.legal_wire` has it, whatever the seat and the moment."""
    from hollywood_gin.engine.match import Match
    from hollywood_gin.engine.options import Options
    from hollywood_gin.tables.frames import legal_bytes

    knocks = 0
    for seed in range(6):
        rng = random.Random(seed)
        bots = (Bot("easy", random.Random(seed + 1)), Bot("easy", random.Random(seed + 2)))
        match = Match(Options("standard", "game", 100), rng=random.Random(seed + 100))
        match.endings = seed % 2 == 1  # `resign` after the plays, or not
        match.start()
        for _ in range(400):
            for seat in (0, 1, None):
                view = match.view(seat)
                assert legal_bytes(view) == orjson.dumps(view.legal_wire()), (seed, seat)
                knocks += len(view.knock_deadwood)
            if match.status == "match_over":
                break
            seat = next((s for s in (0, 1) if match.playable(s)), None)
            if seat is None:
                break
            moves = match.playable(seat)
            if match.status == "playing" and rng.random() < 0.8:
                match.apply(seat, bots[seat].choose(match.view(seat)))
            else:
                match.apply(seat, rng.choice(moves))
    assert knocks > 20
