"""The computer seat: moves like a person would, told of every change as the hub is.

The writer tells `Computer.changed(table)` after every change of a table (and when
it is created, loaded or claimed), as it tells the hub. The computer shows its
bot the seat's view (what that seat's browser gets), and when the seat may act it
chooses (in the worker processes of `Thinkers`, or a thread) during its delay, the
pause that lets a person follow, and then acts through `Moves.act` like any
player, stale versions and refusals included.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from hollywood_gin.bots import Bot
from hollywood_gin.bots.hints import hint, point_now, seed_for
from hollywood_gin.bots.knowledge import BotMemory
from hollywood_gin.bots.ladder import personality
from hollywood_gin.engine.actions import END_KINDS, MATCH_KINDS, Action
from hollywood_gin.engine.errors import NotYourTurn, RuleError
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.views import View
from hollywood_gin.tables.errors import Moved, NotAllowed, StoreUnavailable
from hollywood_gin.tables.table import Table, short
from hollywood_gin.tables.thinking import Thinkers

log = logging.getLogger("hollywood_gin.tables")

# The computer's policy: a seat's view (what its browser gets) -> one of its `legal` actions.
Policy = Callable[[View, str, random.Random | None], Action]


class Act(Protocol):
    """How the computer moves: as any player does (`tables.moves.Moves.act`)."""

    async def __call__(
        self, table: Table, seat: int, action: Action, version: int | None, *, by: str | None = None
    ) -> None: ...


@dataclass(slots=True)
class Seats:
    """The computer's part of one table: the player of its own seat (a `Bot`, with
    its memory of the views it was sent) and its moving task, and the players
    standing in for away seats (normal strength) and theirs. Dropped with the table."""

    bot: Bot | None = None
    task: asyncio.Task[None] | None = None
    stand_in_bots: dict[int, Bot] = field(default_factory=dict)
    stand_in_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    # What each person's seat has been shown (for its hints: `Computer.hint`), fed the
    # seat's views as the computer's own memory is; and the hint of the present
    # version being computed or computed, per seat (another tab asks for the same).
    memories: dict[int, BotMemory] = field(default_factory=dict)
    hints: dict[int, tuple[int, asyncio.Future[JsonObject]]] = field(default_factory=dict)

    def tasks(self) -> list[asyncio.Task[None]]:
        own = [] if self.task is None else [self.task]
        return own + list(self.stand_in_tasks.values())


class Computer:
    """The computer seats of one registry's tables."""

    def __init__(
        self,
        act: Act,
        held: Callable[[str], Table | None],
        think: Callable[[str, float], None],
        *,
        policy: Policy | None = None,
        delay: float = 0.8,
        rng: random.Random | None = None,
        thinkers: Thinkers | None = None,
    ) -> None:
        self.act = act  # its moves, as any player's
        self.held = held  # the table held here by id (a table let go: it stops)
        self.think = think  # where its thinking times go (the writer's observer)
        self.policy = policy
        self.delay = delay
        self.rng = rng
        # Where the computer thinks: worker processes (None: a thread of this process,
        # for tests that build registries by the dozen).
        self.thinkers = thinkers
        # The computer's part of each table it plays or stands in at, by table id.
        self._seats: dict[str, Seats] = {}

    def seats(self, table_id: str) -> Seats | None:
        """The computer's part of the table (None: it neither plays nor stands in there)."""
        return self._seats.get(table_id)

    def forget(self, table: Table) -> None:
        """The table is no longer held here: stop moving for it, and forget it."""
        seats = self._seats.pop(table.id, None)
        for task in seats.tasks() if seats is not None else ():
            task.cancel()

    def busy(self, table_id: str) -> bool:
        """Whether the computer is moving (or standing in) at the table now."""
        seats = self._seats.get(table_id)
        return seats is not None and any(not task.done() for task in seats.tasks())

    def tasks(self) -> list[asyncio.Task[None]]:
        """Every moving task, for closing."""
        return [task for seats in self._seats.values() for task in seats.tasks()]

    def changed(self, table: Table, seats: Sequence[int] | None = None) -> None:
        """A change of `table` (the writer's listener): show the computer its view; move
        if it may. A change of `seats` only (a person's card order) is not its news."""
        if seats is not None:
            return
        mine = self._seats.get(table.id)
        stand_in = table.match.presence.stand_in
        if stand_in[0] or stand_in[1] or (mine is not None and mine.stand_in_bots):
            mine = self._stand_ins(table, mine)
        seat = table.computer_seat()
        if seat is None:
            return
        if mine is None:
            mine = self._seats[table.id] = Seats()
        for person in (0, 1):
            if person != seat and table.human(person):
                mine.memories.setdefault(person, BotMemory()).observe(table.view(person))
        if self.policy is None:
            # The computer remembers what its seat was shown (the discard pile, what the
            # opponent took): feed it every state, as a browser would get it.
            if mine.bot is None:
                # the seat holds a computer id of the ladder: its parameters, here only
                mine.bot = personality(table.seats[seat].computer or "normal").bot(self.rng)
            mine.bot.observe(table.view(seat))
        if not table.match.playable(seat):
            return
        if mine.task is None or mine.task.done():
            mine.task = asyncio.get_running_loop().create_task(self._drive(table, seat))

    def _stand_ins(self, table: Table, mine: Seats | None) -> Seats:
        """The computer (normal) plays an away seat's moves while it stands in for it."""
        if mine is None:
            mine = self._seats[table.id] = Seats()
        bots, tasks = mine.stand_in_bots, mine.stand_in_tasks
        for seat in (0, 1):
            if not table.match.presence.stand_in[seat] or not table.human(seat):
                bots.pop(seat, None)
                continue
            bot = bots.get(seat)
            if bot is None:
                bot = bots[seat] = Bot("normal", rng=self.rng)
            bot.observe(table.view(seat))
            # It deals the next hand on; a new match is the person's to start.
            if not [a for a in table.match.playable(seat) if a.kind != "new_match"]:
                continue
            task = tasks.get(seat)
            if task is None or task.done():
                tasks[seat] = asyncio.get_running_loop().create_task(
                    self._drive(table, seat, by="stand_in")
                )
        return mine

    async def choose_for(self, table: Table, seat: int) -> Action:
        """The computer's move (normal) for a person's seat whose turn clock ran out,
        decided in the worker processes like any computer move."""
        view = playable_view(table.view(seat))
        bot = Bot("normal", rng=self.rng)
        bot.observe(view)
        try:
            return await self._think(bot, view, None)
        except Exception:
            log.exception("table %s: timeout move failed", short(table.id))
            return view.legal[0]

    async def hint(self, table: Table, seat: int) -> JsonObject:
        """The coach's hint for `seat`'s decision now (`bots/hints.py`), from what the
        seat was shown: `{"version", "best", "choices"}`, computed off the event loop
        (the computer's worker processes), once per state version and seat.

        :raises NotAllowed: no computer plays at the table (two people: no hints).
        :raises NotYourTurn: the seat has no decision to hint at now.
        """
        computer = table.computer_seat()
        if computer is None or computer == seat:
            raise NotAllowed("hints are for games against the computer")
        mine = self._seats.get(table.id)
        if mine is None:
            mine = self._seats[table.id] = Seats()
        version = table.version
        known = mine.hints.get(seat)
        if known is not None and known[0] == version:
            return await asyncio.shield(known[1])
        view = table.view(seat)
        hand = view.hand
        memory = mine.memories.setdefault(seat, BotMemory())
        seen = memory.seen(view)
        point = None if seen is None or hand is None else point_now(seen, hand.phase, view.legal)
        if point is None:
            raise NotYourTurn("no move of yours to give a hint for now")
        seed = seed_for(table.id, seat, version)
        thinkers = self.thinkers

        async def compute() -> JsonObject:
            if thinkers is not None:
                body = await thinkers.run(hint, point, seed)
            else:
                body = await asyncio.to_thread(hint, point, seed)
            return {"version": version, **body}

        future: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_task(compute())
        mine.hints[seat] = (version, future)
        try:
            return await asyncio.shield(future)
        except Exception:
            if mine.hints.get(seat) == (version, future):
                del mine.hints[seat]  # asking again tries again
            raise

    async def _drive(self, table: Table, seat: int, *, by: str | None = None) -> None:
        """Move for the computer while it has legal actions, like a person would
        (`by` "stand_in": for an away seat, while it stands in for it).

        The computer thinks while the table waits anyway: the pause that lets a
        person follow (`delay`) starts when the computer may move, and its
        thinking runs during it, so a move takes the longer of the two (not
        their sum)."""
        strength = "normal" if by else table.seats[seat].computer or "normal"
        loop = asyncio.get_running_loop()
        while self.held(table.id) is table:
            if by == "stand_in" and not table.match.presence.stand_in[seat]:
                return
            if not table.match.playable(seat):
                return
            began = loop.time()
            view = playable_view(table.view(seat))
            legal = view.legal
            if by == "stand_in":
                legal = tuple([a for a in legal if a.kind != "new_match"])
            if not legal:
                if by == "stand_in":
                    return
                await asyncio.sleep(self.delay)
                continue
            agree = [a for a in legal if a.kind in MATCH_KINDS]
            if agree:
                # It always agrees to go on; the person decides when.
                action = agree[0]
            else:
                thinking = time.perf_counter()
                try:
                    action = await self._choose(table, view, strength, seat, by)
                    self.think(strength, time.perf_counter() - thinking)
                except Exception:
                    # A broken policy must not stall the person: play something legal.
                    log.exception("table %s: computer policy failed", short(table.id))
                    action = legal[0]
            rest = self.delay - (loop.time() - began)
            if rest > 0:
                await asyncio.sleep(rest)
            if self.held(table.id) is not table:
                return
            if by == "stand_in" and not table.match.presence.stand_in[seat]:
                return  # the person came back while it thought
            try:
                await self.act(table, seat, action, view.version, by=by)
            except RuleError as exc:
                if exc.code == "stale_version":
                    continue  # the person moved meanwhile: look again
                if by == "stand_in" and not table.match.presence.stand_in[seat]:
                    return  # the person came back meanwhile
                log.warning("table %s: computer move refused (%s)", short(table.id), exc.code)
                with contextlib.suppress(RuleError):
                    await self.act(table, seat, legal[0], view.version, by=by)
            except Moved:
                return
            except StoreUnavailable:
                # The store is away for a moment: look again later, as a person would.
                await asyncio.sleep(max(1.0, self.delay))
            except Exception:
                log.exception("table %s: computer move failed", short(table.id))
                return

    async def _choose(
        self, table: Table, view: View, strength: str, seat: int, by: str | None = None
    ) -> Action:
        mine = self._seats.get(table.id)
        bot = None
        if mine is not None:
            bot = mine.stand_in_bots.get(seat) if by == "stand_in" else mine.bot
        return await self._think(bot, view, strength)

    async def _think(self, bot: Bot | None, view: View, strength: str | None) -> Action:
        # The policy can search: keep it off the event loop.
        if self.policy is not None:
            return await asyncio.to_thread(self.policy, view, strength or "normal", self.rng)
        if bot is None:
            return view.legal[0]
        if self.thinkers is not None:
            return await self.thinkers.choose(bot, view)
        return await asyncio.to_thread(bot.choose, view)


def playable_view(view: View) -> View:
    """The view without the end actions (`resign`, `claim`, `stand_in`): the computer
    never chooses them, whether it plays its own seat or stands in for a person."""
    if not any(a.kind in END_KINDS for a in view.legal):
        return view
    return view._replace(legal=tuple([a for a in view.legal if a.kind not in END_KINDS]))
