"""Time at the tables: the optional turn clock, and when an absent seat becomes away.

The clock times each move of a hand, and between hands the `next_hand` / `new_match`
of a person the other person is waiting for (`Table.deadline_due`): a connected
player who never presses "Next hand" times out like one who never moves.

Both are driven by the registry's clock (`Registry.clock`, injectable), never by
the sleeping itself: `tick()` does everything that is due by that clock, so a test
sets the clock past a deadline and calls `tick()`, with no sleeping. In a server,
`run()` calls `tick()` when the next thing falls due (at least once a second).

What survives a restart (or a claim by another worker of a shared store): the
timeouts in a row and a stand-in, which the log holds (the `by` of its actions).
What starts afresh: a deadline (the action due gets a whole `turn_seconds` again)
and absence (a seat not connected is away `claim_after` seconds after the table
was loaded, as if it had left then). A restart closes every socket, so nobody is
blamed for the time the server was away; a staller gains at most one turn per
restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.errors import Refusal
from hollywood_gin.tables.computer import Computer
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.table import Table, short
from hollywood_gin.tables.writer import Writer

log = logging.getLogger("hollywood_gin.tables")

# What the clock sends for a seat between hands (issue 41).
READY_KINDS = frozenset({"next_hand", "new_match"})
# The loop looks at least this often (a clock that jumps, a missed wake-up).
MAX_SLEEP = 1.0
MIN_SLEEP = 0.05


class Tables(Protocol):
    """What the clocks ask of the tables' owner (the registry is one), so that this
    module does not import the registry that imports it."""

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def claim_after(self) -> float: ...

    @property
    def computer(self) -> Computer: ...

    @property
    def hub(self) -> Hub: ...

    @property
    def writer(self) -> Writer: ...

    def get(self, table_id: str) -> Table | None: ...

    async def act(
        self, table: Table, seat: int, action: Action, version: int | None, *, by: str | None = None
    ) -> None: ...


class Clockwork:
    """The turn clocks and away times of one registry's tables."""

    def __init__(self, registry: Tables) -> None:
        self.registry = registry
        # When each table next needs a look (clock seconds): a deadline, an away time.
        self._due: dict[str, float] = {}
        # Tables whose timeout move is being chosen or made, and that move.
        self._moving: set[str] = set()
        self._moves: set[asyncio.Task[None]] = set()
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self.timeouts = 0  # timeout moves made (tests, metrics)

    def schedule(self, table: Table) -> None:
        """Note when `table` next needs a look (after any change of it or its presence)."""
        due: list[float] = []
        if table.deadline is not None and table.id not in self._moving:
            due.append(table.deadline)
        match = table.match
        for seat in range(len(table.seats)):
            left = table.left_at[seat]
            if table.human(seat) and left is not None and not match.presence.absent[seat]:
                due.append(left + self.registry.claim_after)
        if not due:
            self._due.pop(table.id, None)
            return
        when = min(due)
        earlier = when < self._due.get(table.id, float("inf"))
        self._due[table.id] = when
        if earlier and self._wake is not None:
            self._wake.set()

    def changed(self, table: Table, seats: Sequence[int] | None = None) -> None:
        """The writer's listener: a change of the whole table may move its clocks."""
        if seats is None:
            self.schedule(table)

    def forget(self, table_id: str) -> None:
        self._due.pop(table_id, None)

    def next_due(self) -> float | None:
        return min(self._due.values(), default=None)

    async def tick(self, *, wait: bool = False) -> list[asyncio.Task[None]]:
        """Do what is due by the clock: seats that became away are shown so, actions
        whose deadline passed are made by the computer. `wait`: return once every
        timeout move under way is made (tests); else they go on in the background."""
        registry = self.registry
        now = registry.clock()
        moves: list[asyncio.Task[None]] = []
        for table_id, when in list(self._due.items()):
            if when > now:
                continue
            table = registry.get(table_id)
            if table is None:
                self._due.pop(table_id, None)
                continue
            self.refresh_away(table)
            if (
                table.deadline is not None
                and table.deadline <= now
                and table.id not in self._moving
            ):
                move = asyncio.get_running_loop().create_task(self._timeout(table))
                self._moves.add(move)
                move.add_done_callback(self._moves.discard)
                moves.append(move)
            self.schedule(table)
        if wait and self._moves:
            # Those started here and any the loop started meanwhile.
            await asyncio.gather(*self._moves, return_exceptions=True)
        return moves

    async def _timeout(self, table: Table) -> None:
        """The deadline passed: the computer makes that one move for the seat."""
        due = table.deadline_due()
        version = table.deadline_version
        if due is None or version is None or due[1] != version:
            return
        seat = due[0]
        if table.id in self._moving:
            return
        self._moving.add(table.id)
        self._due.pop(table.id, None)
        try:
            ready = [a for a in table.match.playable(seat) if a.kind in READY_KINDS]
            # Between hands the move is the ready signal itself: nothing to think about.
            action = ready[0] if ready else await self.registry.computer.choose_for(table, seat)
            # At the version the deadline was set for: a move of the seat's own made
            # meanwhile makes this one stale, so the clock moves at most once.
            await self.registry.act(table, seat, action, version, by="timeout")
            self.timeouts += 1
            log.info("table %s seat %d: turn clock ran out", short(table.id), seat)
        except Refusal as exc:
            log.debug("table %s: timeout move not made (%s)", short(table.id), exc)
        finally:
            self._moving.discard(table.id)
            if self.registry.get(table.id) is table:
                self.schedule(table)

    # --- presence and away (docs/protocol-guide.md "Around the match") ------------------------
    def refresh_away(self, table: Table, *, broadcast: bool = True) -> bool:
        """Tell the match which seats are away by absence now; True when that changed
        (and then, with `broadcast`, everybody gets the state: claim may be open)."""
        absent = table.absent_now(self.registry.claim_after)
        if absent == table.match.presence.absent:
            return False
        table.match.presence.absent = absent
        if broadcast:
            self.registry.hub.broadcast(table)
        return True

    def presence(self, table: Table) -> None:
        """A connection of `table` opened or closed (the socket endpoint calls this after
        the hub's attach or detach): note when each seat left, who is away, and end the
        stand-in of a seat whose connection said hello again."""
        registry = self.registry
        if registry.get(table.id) is not table:
            return
        now, hub = registry.clock(), registry.hub
        for seat in range(len(table.seats)):
            if hub.connected(table.id, seat):
                table.left_at[seat] = None
            elif table.left_at[seat] is None:
                table.left_at[seat] = now
        self.refresh_away(table)
        for seat in range(len(table.seats)):
            if table.match.presence.stand_in[seat] and hub.connected(table.id, seat):
                registry.writer.start(self.back(table, seat))
        self.schedule(table)

    async def back(self, table: Table, seat: int) -> None:
        """The seat is back: the computer stops standing in for it (stored in the log)."""
        came_back = False

        def come_back() -> None:
            nonlocal came_back
            came_back = table.match.back(seat)  # False: not (or no longer) standing in

        await self.registry.writer.change(table, come_back)
        if came_back:
            log.info("table %s seat %d is back; the stand-in stops", short(table.id), seat)

    # --- the loop ------------------------------------------------------------------
    def start(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self.run())

    async def run(self) -> None:
        assert self._wake is not None
        while True:
            now = self.registry.clock()
            when = self.next_due()
            delay = MAX_SLEEP if when is None else min(MAX_SLEEP, max(MIN_SLEEP, when - now))
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)
            try:
                await self.tick()
            except Exception:  # one bad table must not stop every clock
                log.exception("turn clock tick failed")

    async def close(self) -> None:
        for task in [self._task, *self._moves]:
            if task is not None:
                task.cancel()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
