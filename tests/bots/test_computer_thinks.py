"""The computer thinks while the table waits anyway
(docs/architecture.md "The computer opponent"): its pause before a
move (`computer_delay`, the setting `bot_delay_seconds`) runs while it chooses,
instead of before, so a person waits the longer of the two, not their sum."""

from __future__ import annotations

import asyncio
import random

import pytest

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.events import ActionTaken
from hollywood_gin.engine.views import View
from tests.tables.helpers import INDEX_DECK
from tests.tables.test_registry import make_registry


@pytest.mark.anyio
async def test_the_computer_chooses_during_its_delay_and_moves_after_it() -> None:
    """A delay far longer than the test: the computer has already chosen (its
    policy was asked) while its move is still waiting for the delay to pass."""

    asked: list[View] = []
    chosen = asyncio.Event()

    def policy(view: View, strength: str, rng: random.Random | None) -> Action:
        asked.append(view)
        chosen.set()
        return view.legal[0]

    registry = make_registry(policy=policy, computer_delay=3600.0)
    table, _ = await registry.create(
        {"scoring": "hand"}, "Ann", computer="hard", test_decks=[INDEX_DECK], first_dealer=0
    )
    # Dealer 0: the computer (seat 1) holds the upcard offer first.
    await asyncio.wait_for(chosen.wait(), timeout=30)
    assert len(asked) == 1 and asked[0].legal
    assert not [e for e in table.match.log if isinstance(e, ActionTaken)]  # not moved yet
    await registry.close()


@pytest.mark.anyio
async def test_without_a_delay_the_computer_moves_at_once() -> None:
    registry = make_registry(computer_delay=0.0)
    table, _ = await registry.create(
        {"scoring": "hand"}, "Ann", computer="normal", test_decks=[INDEX_DECK], first_dealer=0
    )
    for _ in range(200):
        if [e for e in table.match.log if isinstance(e, ActionTaken)]:
            break
        await asyncio.sleep(0.01)
    moves = [e for e in table.match.log if isinstance(e, ActionTaken)]
    assert moves and moves[0].seat == 1
    await registry.close()
