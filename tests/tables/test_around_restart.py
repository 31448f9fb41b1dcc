"""Around the match across a restart: what the log holds (timeouts in a row, a
stand-in, a resign) comes back as it was; deadlines and absence start afresh."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.errors import IllegalAction
from hollywood_gin.engine.events import ActionTaken
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.lifecycle import assemble
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.table import Table
from tests.tables.helpers import INDEX_DECK
from tests.tables.memory_store import MemoryStore

T0 = 1_800_000_000.0


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def registry_on(store: MemoryStore, clock: Clock, **kw: Any) -> Registry:
    hub = Hub(max_tabs_per_seat=5, max_spectators=5)
    kw.setdefault("computer_delay", 0.0)
    return assemble(store, hub, expiry_seconds=1e9, clock=clock, claim_after=2.0, **kw)


def test_the_end_actions_are_off_for_engine_users() -> None:
    match = Match(Options(), deck_orders=[INDEX_DECK], first_dealer=0)
    match.start()
    assert all(
        a.kind not in ("resign", "claim", "stand_in") for s in (0, 1) for a in match.legal(s)
    )
    with pytest.raises(IllegalAction):
        match.apply(0, Action.of("resign"))
    match.endings = True
    assert [a.kind for a in match.legal(0)] == ["resign"]
    match.presence.absent[1] = True
    assert [a.kind for a in match.legal(0)] == ["resign", "claim", "stand_in"]
    # The computer and a stand-in never choose them.
    assert [a.kind for a in match.playable(0)] == []


@pytest.mark.anyio
async def test_timeouts_survive_a_restart_and_the_deadline_starts_afresh() -> None:
    store, clock = MemoryStore(), Clock()
    registry = registry_on(store, clock)
    table, _ = await registry.create(
        {"turn_seconds": 15}, "Ann", test_decks=[INDEX_DECK], first_dealer=0
    )
    await registry.join(table.id, "Bob")
    assert registry.presence.crowd(table.id).deadline == T0 + 15
    clock.now += 15
    await registry.presence.tick(wait=True)
    assert table.match.presence.timeouts == [0, 1] and table.version == 2
    await registry.close()
    # A restart 100 s later: the count is in the log, the deadline is new.
    clock.now += 100
    again = registry_on(store, clock)
    assert await again.load() == 1
    rebuilt = again.get(table.id)
    assert rebuilt is not None
    assert rebuilt.match.presence.timeouts == [0, 1]
    assert again.presence.crowd(rebuilt.id).deadline == clock.now + 15
    assert again.presence.players(rebuilt)[1]["timeouts"] == 1
    # Nobody is away yet: absence counts from the load.
    again.presence.refresh_away(rebuilt)
    assert rebuilt.match.presence.absent == [False, False]
    clock.now += 2
    again.presence.refresh_away(rebuilt)
    assert rebuilt.match.presence.absent == [True, True]
    await again.close()


async def play_until(registry: Registry, table: Table, done: Any, limit: int = 3000) -> None:
    """Ann (seat 0) plays her first playable action (a knock if she can); the
    stand-in plays Bob's in its own task."""
    for _ in range(limit):
        if done():
            return
        playable = table.match.playable(0)
        if playable:
            knocks = [a for a in playable if a.kind == "knock"]
            with contextlib.suppress(IllegalAction):
                await registry.act(table, 0, (knocks or playable)[0], table.version)
        await asyncio.sleep(0.005)
    raise AssertionError("did not get there")


@pytest.mark.anyio
async def test_a_stand_in_survives_a_restart_across_hands_until_the_seat_is_back() -> None:
    store, clock = MemoryStore(), Clock()
    registry = registry_on(store, clock)
    table, _ = await registry.create(
        {"scoring": "game"}, "Ann", test_decks=[INDEX_DECK] * 5, first_dealer=0
    )
    await registry.join(table.id, "Bob")
    clock.now += 2
    registry.presence.refresh_away(table)
    await registry.act(table, 0, Action.of("stand_in"), table.version)
    assert table.match.presence.stand_in == [False, True]
    # Play on into the second hand: the stand-in deals it on with `next_hand`.
    await play_until(
        registry, table, lambda: table.match.hand is not None and table.match.hand.number == 2
    )
    stood = [e for e in table.match.log if isinstance(e, ActionTaken) and e.by == "stand_in"]
    assert (
        any(e.action.kind == "next_hand" for e in stood) or registry.writer.ledger(table).base > 0
    )
    views = [{**table.view(s).wire(), "legal": None} for s in (0, 1)]
    assert "claim" in [a.kind for a in table.match.legal(0)]
    await registry.close()
    again = registry_on(store, clock)
    await again.load()
    rebuilt = again.get(table.id)
    assert rebuilt is not None
    assert rebuilt.match.presence.stand_in == [False, True]  # carried by the deal's snapshot
    assert [{**rebuilt.view(s).wire(), "legal": None} for s in (0, 1)] == views
    # Absence counts afresh from the load: the claim opens again after its time.
    assert "claim" not in [a.kind for a in rebuilt.match.legal(0)]
    clock.now += 2
    again.presence.refresh_away(rebuilt)
    assert "claim" in [a.kind for a in rebuilt.match.legal(0)]
    # The stand-in goes on playing after the restart.
    before = rebuilt.version
    await play_until(again, rebuilt, lambda: rebuilt.version >= before + 6)
    # Bob is back: stored, so a second restart knows it too.
    await again.presence.back(rebuilt, 1)
    assert rebuilt.match.presence.stand_in == [False, False]
    await again.close()
    third = registry_on(store, clock)
    await third.load()
    final = third.get(table.id)
    assert final is not None and final.match.presence.stand_in == [False, False]
    await third.close()
