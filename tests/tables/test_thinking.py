"""The computer thinks in a worker process, never in the server's own
(docs/architecture.md "The computer opponent")."""

from __future__ import annotations

import asyncio
import os
import random
import time

import pytest

from hollywood_gin.bots import Bot
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.lifecycle import assemble
from hollywood_gin.tables.thinking import Thinkers
from tests.tables.memory_store import MemoryStore


@pytest.mark.anyio
async def test_a_decision_comes_from_another_process_and_is_legal() -> None:
    thinkers = Thinkers(1)
    try:
        match = Match(Options.from_dict({}), rng=random.Random(5))
        match.start()
        seat = next(s for s in (0, 1) if match.legal(s))
        view = match.view(seat)
        bot = Bot("hard", rng=random.Random(7))
        bot.observe(view)
        before = bot.rng.getstate()
        action = await thinkers.choose(bot, view)
        assert action in view.legal
        assert thinkers.pids and os.getpid() not in thinkers.pids
        # The bot's randomness moved on as if it had thought here.
        assert bot.rng.getstate() != before or not any(
            a.kind in ("discard", "knock") for a in view.legal
        )
    finally:
        thinkers.close()


@pytest.mark.anyio
async def test_the_registry_plays_the_computer_through_the_pool() -> None:
    thinkers = Thinkers(1)
    registry = assemble(
        MemoryStore(),
        Hub(max_tabs_per_seat=5, max_spectators=5),
        expiry_seconds=3600,
        computer_delay=0.0,
        thinkers=thinkers,
    )
    try:
        table, _token = await registry.create({}, "Ann", computer="hard")
        # Play the person's side with the easy bot until the computer has moved 3 times.
        # The bound is on a hang, not a speed: a worker process started on a busy
        # machine takes seconds before its first decision.
        person = Bot("easy", rng=random.Random(1))
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if len(thinkers.pids) and table.version >= 6:
                break
            if table.match.playable(0):
                view = table.view(0)
                person.observe(view)
                await registry.act(table, 0, person.choose(view), table.version)
            await asyncio.sleep(0.02)
        assert table.version >= 6
        assert thinkers.pids and os.getpid() not in thinkers.pids
    finally:
        await registry.close()
        thinkers.close()
