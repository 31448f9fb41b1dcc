"""The computer seat: moves like a person would, told of every change as the hub is.

The registry tells `Computer.changed(table)` after every change of a table (and when
it loads or claims one), as it tells the hub to broadcast. The computer shows its
bot the seat's view (what that seat's browser gets), and when the seat may act it
chooses (in the worker processes of `Thinkers`, or a thread) during its delay, the
pause that lets a person follow, and then acts through the registry like any
player, stale versions and refusals included.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from typing import Protocol

from hollywood_gin.bots import Bot
from hollywood_gin.engine.actions import MATCH_KINDS, Action
from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.views import View
from hollywood_gin.tables.table import Moved, StoreUnavailable, Table, short
from hollywood_gin.tables.thinking import Thinkers

log = logging.getLogger("hollywood_gin.tables")

# The computer's policy: a seat's view (what its browser gets) -> one of its `legal` actions.
Policy = Callable[[View, str, random.Random | None], Action]


class Thinking(Protocol):
    """Where a computer's timings go (the registry's observer)."""

    def think(self, strength: str, seconds: float) -> None: ...


class Players(Protocol):
    """What the computer needs of the registry: whether a table is still held here,
    the way to act on it, and where to report its thinking time."""

    @property
    def observer(self) -> Thinking: ...

    def get(self, table_id: str) -> Table | None: ...

    async def act(self, table: Table, seat: int, action: Action, version: int | None) -> None: ...


class Computer:
    """The computer seats of one registry's tables."""

    def __init__(
        self,
        players: Players,
        *,
        policy: Policy | None = None,
        delay: float = 0.8,
        rng: random.Random | None = None,
        thinkers: Thinkers | None = None,
    ) -> None:
        self.players = players
        self.policy = policy
        self.delay = delay
        self.rng = rng
        # Where the computer thinks: worker processes (None: a thread of this process,
        # for tests that build registries by the dozen).
        self.thinkers = thinkers

    def forget(self, table: Table) -> None:
        """The table is no longer held here: stop moving for it."""
        if table.computer_task is not None:
            table.computer_task.cancel()

    def changed(self, table: Table) -> None:
        """A change of `table`: show the computer its view; move if it may."""
        seat = table.computer_seat()
        if seat is None:
            return
        if self.policy is None:
            # The computer remembers what its seat was shown (the discard pile, what the
            # opponent took): feed it every state, as a browser would get it.
            if table.computer_bot is None:
                strength = table.seats[seat].computer or "normal"
                table.computer_bot = Bot(strength, rng=self.rng)
            table.computer_bot.observe(table.view(seat))
        if not table.match.legal(seat):
            return
        if table.computer_task is None or table.computer_task.done():
            table.computer_task = asyncio.get_running_loop().create_task(self._drive(table, seat))

    async def _drive(self, table: Table, seat: int) -> None:
        """Move for the computer while it has legal actions, like a person would.

        The computer thinks while the table waits anyway: the pause that lets a
        person follow (`delay`) starts when the computer may move, and its
        thinking runs during it, so a move takes the longer of the two (not
        their sum)."""
        strength = table.seats[seat].computer or "normal"
        loop = asyncio.get_running_loop()
        while self.players.get(table.id) is table:
            if not table.match.legal(seat):
                return
            began = loop.time()
            view = table.view(seat)
            legal = view.legal
            if not legal:
                await asyncio.sleep(self.delay)
                continue
            agree = [a for a in legal if a.kind in MATCH_KINDS]
            if agree:
                # It always agrees to go on; the person decides when.
                action = agree[0]
            else:
                thinking = time.perf_counter()
                try:
                    action = await self._choose(table, view, strength)
                    self.players.observer.think(strength, time.perf_counter() - thinking)
                except Exception:
                    # A broken policy must not stall the person: play something legal.
                    log.exception("table %s: computer policy failed", short(table.id))
                    action = legal[0]
            rest = self.delay - (loop.time() - began)
            if rest > 0:
                await asyncio.sleep(rest)
            if self.players.get(table.id) is not table:
                return
            try:
                await self.players.act(table, seat, action, view.version)
            except RuleError as exc:
                if exc.code == "stale_version":
                    continue  # the person moved meanwhile: look again
                log.warning("table %s: computer move refused (%s)", short(table.id), exc.code)
                with contextlib.suppress(RuleError):
                    await self.players.act(table, seat, legal[0], view.version)
            except Moved:
                return
            except StoreUnavailable:
                # The store is away for a moment: look again later, as a person would.
                await asyncio.sleep(max(1.0, self.delay))
            except Exception:
                log.exception("table %s: computer move failed", short(table.id))
                return

    async def _choose(self, table: Table, view: View, strength: str) -> Action:
        # The policy can search: keep it off the event loop.
        if self.policy is not None:
            return await asyncio.to_thread(self.policy, view, strength, self.rng)
        bot = table.computer_bot
        if bot is None:
            return view.legal[0]
        if self.thinkers is not None:
            return await self.thinkers.choose(bot, view)
        return await asyncio.to_thread(bot.choose, view)
