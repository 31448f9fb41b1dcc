"""The parts `EncodedParts` keeps encoded across changes (the `table` object, the
body's tail, each seat's own keys, `legal`'s actions) never outlive what they show:
after every kind of change a seat's frame is, byte for byte, the plain encoding of
its state message (docs/architecture.md "The web layer")."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.bots import Bot
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.match import Match
from hollywood_gin.tables.hub import Connection
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.table import Table
from tests.tables.helpers import registry_on
from tests.tables.stores import opened
from tests.tables.test_frames import SEATS, Clock, plain


def check(registry: Registry, table: Table, what: str) -> None:
    """A fresh broadcast's frames (the kept parts reused) against the plain encoding."""
    frames = registry.hub._state_frames(table)
    for seat in SEATS:
        assert frames.frame(seat) == plain(registry, table, seat), (what, seat)


def rebuilt(table: Table, seed: int) -> Match:
    """The match replayed from its log, as the writer's undo and a re-claim rebuild it."""
    old = table.match
    match = Match.replay(
        table.options,
        old.log,
        rng=random.Random(seed),
        orders=old.orders,
        endings=True,
        fair=True,
    )
    match.presence.absent = list(old.presence.absent)
    return match


async def _run(registry: Registry, clock: Clock, seed: int, clocked: bool, scoring: str) -> int:
    options: dict[str, object] = {"rules": "standard", "scoring": scoring, "target": 100}
    if clocked:
        options["turn_seconds"] = 20
    table, _ = await registry.create(options, "Ann")
    await registry.join(table.id, "Bob")
    hub = registry.hub
    conns = {seat: Connection(seat) for seat in SEATS}
    for conn in conns.values():
        hub.attach(table, conn)
    bots = (Bot("easy", random.Random(seed + 1)), Bot("easy", random.Random(seed + 2)))
    rng = random.Random(seed)
    matches = 0  # the matches seen over
    was_over = False
    checks = 0
    for _ in range(3000):
        check(registry, table, "change")
        checks += 1
        roll = rng.random()
        match = table.match
        if roll < 0.08 and match.hand is not None:
            # A seat re-orders its cards: only its own keys change.
            seat = rng.choice((0, 1))
            cards = [c.text for c in match.hand.cards[seat]]
            rng.shuffle(cards)
            await registry.arrange(table, seat, cards)
            check(registry, table, "arrange")
            continue
        if roll < 0.12:
            # A seat's last tab closes and opens again; time passes meanwhile.
            seat = rng.choice((0, 1))
            hub.detach(table, conns[seat])
            clock.now += rng.choice((1.0, 7.0, 200.0))
            check(registry, table, "away")
            match.presence.absent[seat] = True  # what the presence sets after the claim time
            check(registry, table, "absent")
            match.presence.absent[seat] = False
            conns[seat] = Connection(seat)
            hub.attach(table, conns[seat])
            check(registry, table, "back")
            continue
        if roll < 0.16:
            # The match rebuilt from its log (a store failure's undo, a re-claim).
            table.match = rebuilt(table, seed)
            check(registry, table, "rebuilt")
            continue
        clock.now += rng.choice((0.0, 0.4, 1.3))
        if table.status == "match_over" and not was_over:
            matches += 1
            if matches == 2:
                break
        was_over = table.status == "match_over"
        seat = next((s for s in (0, 1) if match.playable(s)), None)
        if seat is None:
            break
        moves = match.playable(seat)
        action: Action
        if match.status == "playing" and rng.random() < 0.85:
            action = bots[seat].choose(match.view(seat))
        else:
            action = rng.choice(moves)  # next_hand, new_match: one seat at a time
        await registry.act(table, seat, action, table.version)
    assert matches >= 1, "a new match was reached"
    await registry.close()
    return checks


@pytest.mark.anyio
@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    clocked=st.booleans(),
    scoring=st.sampled_from(("hand", "game", "hollywood")),
)
async def test_kept_parts_follow_every_change(seed: int, clocked: bool, scoring: str) -> None:
    """Moves, a seat re-ordering its cards, a seat leaving, away, back, the match
    rebuilt from its log, a hand over, a new match: every frame as if encoded anew."""
    clock = Clock()
    with tempfile.TemporaryDirectory() as folder:
        async with opened(SqliteStore(Path(folder) / "t.sqlite3")) as store:
            registry = registry_on(store, clock=clock, rng=random.Random(seed))
            # The deals are fair (a fresh server secret each), so how long the two
            # matches last varies from run to run: 46 to 171 checks for one seed.
            assert await _run(registry, clock, seed, clocked, scoring) > 20


def test_a_kept_sheet_holds_its_text_not_orjsons_whole_buffer() -> None:
    """Every held table keeps its sheet encoded between changes; the bytes
    `orjson.dumps` returns hold its whole write buffer (4 KB for a short text), so the
    kept part is a copy of the text alone (`frames.compact`)."""
    import tracemalloc

    from hollywood_gin.engine.options import Options
    from hollywood_gin.tables.frames import EncodedParts

    sheet = Match(Options(), rng=random.Random(1)).view(0).sheet
    parts = EncodedParts()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = parts.sheet(sheet)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert orjson.dumps(kept) and grown < 1024, grown
