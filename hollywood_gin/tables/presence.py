"""Presence, in one room: who is connected, who is away, the turn clock, and the
timers of both (docs/architecture.md "Presence and the turn clock").

Each held table has one `Crowd`, an immutable value replaced whole on every event
(as lila-ws's `RoundCrowd`): the hub's attach and detach (`seated`), a stored
change (`changed`: a new action due gets its deadline) and the clock (`tick`).
Nothing else keeps a seat's connection, absence or deadline; the players list and
the turn clock's keys of a state are read from here (`players`, `stamp`).

The clock times each move of a hand, and between hands the `next_hand` / `new_match`
of a person the other person is waiting for (`due`): a connected player who never
presses "Next hand" times out like one who never moves.

When a seat is away is the table's `AwayRule`, chosen per table (`rule_for`): on a
live table, no connection for `claim_after` seconds; on a table played over days
(`Days`, docs/protocol-guide.md "Correspondence tables"), never for want of a
connection, only once the seat's own deadline has passed. Those deadlines are set
by `deadlines` inside the writer's change (so they are stored with the seats, in the
same write as the move that asks for them, and survive a restart or a claim by
another worker), and the one loop below wakes for them as for every other timer:
no timer per table. Nothing moves for such a seat on its own.

Everything is driven by an injectable clock, never by the sleeping itself: `tick()`
does everything that is due by that clock, so a test sets the clock past a deadline
and calls `tick()`, with no sleeping. In a server, `run()` calls `tick()` when the
next thing falls due (at least once a second).

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
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.errors import Refusal
from hollywood_gin.tables.table import Table, short

log = logging.getLogger("hollywood_gin.tables")

# What the clock sends for a seat between hands (issue 41).
READY_KINDS = frozenset({"next_hand", "new_match"})
# The loop looks at least this often (a clock that jumps, a missed wake-up).
MAX_SLEEP = 1.0
MIN_SLEEP = 0.05

Pair = tuple[bool, bool]
# What a deadline is for: (hand, moves made in it, seat to act, status).
DeadlineKey = tuple[int, int, int, str]


@dataclass(frozen=True, slots=True)
class Crowd:
    """One table's presence at one moment; replaced, never changed in place."""

    # A tab of the seat is open (the hub's attach and detach say so).
    connected: Pair = (False, False)
    # When each seat's last connection closed (clock seconds), None while one is
    # open. A table loaded or claimed starts with both seats unseen since then: a
    # restart gives an absent player the whole claim time again.
    left_at: tuple[float | None, float | None] = (None, None)
    # The turn clock: the deadline (clock seconds) of the action due, the version it
    # is at (a timeout move is made on that version) and what it is for.
    deadline: float | None = None
    deadline_version: int | None = None
    deadline_key: DeadlineKey | None = None

    def seated(self, seat: int, connected: bool, now: float) -> Crowd:
        """The seat's first tab opened (`connected`) or its last one closed."""
        joined = list(self.connected)
        joined[seat] = connected
        left = list(self.left_at)
        if connected:
            left[seat] = None
        elif left[seat] is None:
            left[seat] = now
        return replace(self, connected=_pair(joined), left_at=(left[0], left[1]))

    def sat_down(self, seat: int, now: float) -> Crowd:
        """The seat was just taken: absent from now, not from the table's creation."""
        if self.connected[seat]:
            return self
        left = list(self.left_at)
        left[seat] = now
        return replace(self, left_at=(left[0], left[1]))


def _pair(values: Sequence[bool]) -> Pair:
    return (bool(values[0]), bool(values[1]))


class AwayRule(Protocol):
    """When a seat of a table is away, and when that next needs a look."""

    def away(self, crowd: Crowd, seat: int, now: float) -> bool: ...

    def next_look(self, crowd: Crowd, seat: int) -> float | None:
        """When the seat may become away by the clock alone (None: not by the clock)."""
        ...


@dataclass(frozen=True, slots=True)
class Live:
    """A live table: a seat with no connection for `claim_after` seconds is away."""

    claim_after: float

    def away(self, crowd: Crowd, seat: int, now: float) -> bool:
        left = crowd.left_at[seat]
        return left is not None and now - left >= self.claim_after

    def next_look(self, crowd: Crowd, seat: int) -> float | None:
        left = crowd.left_at[seat]
        return None if left is None else left + self.claim_after


@dataclass(frozen=True, slots=True)
class Days:
    """A table played over days: a seat is away once its deadline has passed,
    connected or not; a seat with no connection is not away for that."""

    table: Table

    def _deadline(self, seat: int) -> float | None:
        seats = self.table.seats
        return seats[seat].deadline if seat < len(seats) else None

    def away(self, crowd: Crowd, seat: int, now: float) -> bool:
        deadline = self._deadline(seat)
        return deadline is not None and now >= deadline

    def next_look(self, crowd: Crowd, seat: int) -> float | None:
        return self._deadline(seat)


def asked(table: Table, seat: int) -> bool:
    """Whether something is asked of a person's `seat` now: its move while a hand is
    played, its `next_hand` between hands, its `new_match` once the other asked."""
    if not table.human(seat) or table.match.hand is None:
        return False
    status = table.match.status
    if status == "playing":
        return table.match.hand.turn == seat
    ready = table.match.ready
    if status == "hand_over":
        return not ready[seat]
    if status == "match_over":
        return not ready[seat] and ready[1 - seat]
    return False


def due(table: Table) -> tuple[int, int] | None:
    """(seat, version) whose action the turn clock asks for now, if any: the move of
    the person whose turn it is while a hand is played; between hands (issue 41),
    the `next_hand` or `new_match` of a person the other person is waiting for (it
    sent its own). Nobody waiting, no clock: a table both players left stops at the
    end of a hand rather than dealing hands to nobody."""
    seconds = table.options.turn_seconds
    hand = table.match.hand
    status = table.match.status
    if seconds is None or hand is None:
        return None
    if status == "playing":
        if hand.turn is None or not table.human(hand.turn):
            return None
        return hand.turn, table.version
    if status not in ("hand_over", "match_over"):
        return None
    ready = table.match.ready
    for seat in (0, 1):
        other = 1 - seat
        if not ready[seat] and ready[other] and table.human(seat) and table.human(other):
            return seat, table.version
    return None


# How the clock acts for a seat (the registry's `act`), and how it chooses that move.
Act = Callable[..., Awaitable[None]]
Choose = Callable[[Table, int], Awaitable[Action]]
Change = Callable[[Table, Callable[[], None]], Awaitable[None]]
Start = Callable[[Coroutine[Any, Any, None]], object]


class Presence:
    """The presence and turn clocks of the tables held here, one `Crowd` each."""

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        claim_after: float,
        broadcast: Callable[[Table], None],
        held: Callable[[str], Table | None],
        seconds_per_day: float = 86400.0,
    ) -> None:
        self.clock = clock
        self.claim_after = claim_after
        # A day of a table played over days (`HOLLYWOOD_GIN_SECONDS_PER_DAY`: tests shorten it).
        self.seconds_per_day = seconds_per_day
        # Told when a quarter of a seat's time is left (Web Push's `deadline_soon`).
        self.soon: Callable[[Table, int], None] | None = None
        # (table, seat) -> the deadline already told of as soon to pass.
        self._soon_told: dict[tuple[str, int], float] = {}
        self._live = Live(claim_after)
        self._broadcast = broadcast
        self._held = held
        # What moves for a seat (`hands`): set once, when the change path is built.
        self._act: Act | None = None
        self._choose: Choose | None = None
        self._change: Change | None = None
        self._start: Start | None = None
        self._crowds: dict[str, Crowd] = {}
        # When each table next needs a look (clock seconds): a deadline, an away time.
        self._due: dict[str, float] = {}
        # Tables whose timeout move is being chosen or made, and that move.
        self._moving: set[str] = set()
        self._moves: set[asyncio.Task[None]] = set()
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self.timeouts = 0  # timeout moves made (tests, metrics)
        self.woken = 0  # tables out of memory loaded by their clock (metrics)
        # Tables out of memory (`hollywood_gin.tables.idle`): what their crowd was
        # (when each seat left, the deadlines told of as soon to pass), so a reload is
        # the table as it was; their next look stays in `_due`, and `fetch` (the
        # registry's `find`) loads one when it falls due.
        self._asleep: dict[str, tuple[tuple[float | None, float | None], dict[int, float]]] = {}
        self.fetch: Callable[[str], Awaitable[Table | None]] | None = None
        self._fetching: set[str] = set()
        # Told of a table played over days' next look whenever it is worked out (a
        # shared store keeps it for when no worker holds the table: `tables.looks`).
        self.looked: Callable[[Table, float | None], None] | None = None

    def hands(self, *, act: Act, choose: Choose, change: Change, start: Start) -> None:
        """What acts for a seat: the move (`act`, `choose`: a timeout) and the change
        that ends a stand-in (`change`, `start`: the writer's)."""
        self._act, self._choose, self._change, self._start = act, choose, change, start

    # --- the value ---------------------------------------------------------------
    def crowd(self, table_id: str) -> Crowd:
        """The table's presence now (a table not held: nobody there, no deadline)."""
        return self._crowds.get(table_id) or _NOBODY

    def rule_for(self, table: Table) -> AwayRule:
        """When a seat of `table` is away: a live table's rule, or one played over days."""
        return self._live if table.options.move_days is None else Days(table)

    def deadlines(self, table: Table) -> Callable[[], None] | None:
        """On a table played over days, each seat's deadline after a change (in the
        writer's change, before it is stored): `move_days` days after the seat was
        first asked, None while nothing is. Returns how to undo it when the deadlines
        changed (they are then stored with the seats), else None."""
        days = table.options.move_days
        if days is None:
            return None
        before = [h.deadline for h in table.seats]
        now = self.clock()
        for seat, holder in enumerate(table.seats):
            if not asked(table, seat):
                holder.deadline = None
            elif holder.deadline is None:
                holder.deadline = now + days * self.seconds_per_day
        if [h.deadline for h in table.seats] == before:
            return None
        seats = list(table.seats)

        def undo() -> None:
            for holder, deadline in zip(seats, before, strict=False):
                holder.deadline = deadline

        return undo

    def hold(self, table: Table) -> None:
        """A table held from now (created, loaded, claimed): both seats unseen since now,
        or, back from idle, since they were."""
        if table.id not in self._crowds:
            now = self.clock()
            slept = self._asleep.pop(table.id, None)
            if slept is None:
                self._crowds[table.id] = Crowd(left_at=(now, now))
                return
            left_at, told = slept
            self._crowds[table.id] = Crowd(left_at=left_at)
            for seat, deadline in told.items():
                self._soon_told[(table.id, seat)] = deadline

    # --- tables out of memory (`hollywood_gin.tables.idle`) --------------------------
    def next_look(self, table_id: str) -> float | None:
        """When the table next needs a look by the clock (None: nothing is due)."""
        return self._due.get(table_id)

    def idle(self, table: Table) -> bool:
        """Whether nothing of the clock is under way or pending in memory only: no timeout
        move, no turn-clock deadline (it starts afresh on a load)."""
        return table.id not in self._moving and self.crowd(table.id).deadline is None

    def sleep(self, table: Table, drop: Callable[[Table], bool]) -> bool:
        """Let `table` go (`drop`: the held tables' own) keeping what a reload needs: its
        crowd's times and its next look, which loads it again when due."""
        crowd = self.crowd(table.id)
        when = self._due.get(table.id)
        told = {s: d for s in (0, 1) if (d := self._soon_told.get((table.id, s))) is not None}
        if not drop(table):
            return False
        self._asleep[table.id] = (crowd.left_at, told)
        if when is not None:
            self.asleep(table.id, when)
        return True

    def asleep(self, table_id: str, when: float) -> None:
        """A table not in memory needs a look at `when` (loaded then by `fetch`)."""
        earlier = when < self._due.get(table_id, float("inf"))
        self._due[table_id] = when
        if earlier and self._wake is not None:
            self._wake.set()

    def gone(self, table_id: str) -> None:
        """The table is no more (expired): nothing of it is kept asleep either."""
        self._asleep.pop(table_id, None)
        self._due.pop(table_id, None)

    def told_before(self, table: Table, look: float | None) -> None:
        """A table claimed from a shared store whose last holder kept `look` as its next
        look: a seat's "deadline soon" that look is past was told already (the look
        would be that moment otherwise), and is not told again here."""
        days = table.options.move_days
        if days is None or look is None:
            return
        for seat, holder in enumerate(table.seats):
            deadline = holder.deadline
            if deadline is not None and look > deadline - days * self.seconds_per_day / 4:
                self._soon_told[(table.id, seat)] = deadline

    def asleep_count(self) -> int:
        return len(self._asleep)

    async def _load(self, table_id: str) -> None:
        """A table out of memory whose look fell due: loaded, it is scheduled anew (the
        writer tells the presence of its arrival); a failure looks again soon."""
        assert self.fetch is not None
        try:
            table = await self.fetch(table_id)
        except Exception as exc:  # the store is away: the next look tries again
            log.warning("table %s could not be loaded for its clock: %r", short(table_id), exc)
            self.asleep(table_id, self.clock() + MAX_SLEEP * 5)
            return
        finally:
            self._fetching.discard(table_id)
        if table is None:
            self.gone(table_id)
        else:
            self.woken += 1

    def forget(self, table: Table) -> None:
        """The table is no longer held here: its crowd and its timers go."""
        self._crowds.pop(table.id, None)
        self._due.pop(table.id, None)
        for seat in (0, 1):
            self._soon_told.pop((table.id, seat), None)

    def seated(self, table_id: str, seat: int, connected: bool) -> None:
        """The hub's event: the seat's first tab opened, or its last one closed."""
        crowd = self._crowds.get(table_id)
        if crowd is not None:
            self._crowds[table_id] = crowd.seated(seat, connected, self.clock())

    def sat_down(self, table: Table, seat: int) -> None:
        """The seat was just taken: away counts from now (a friend who joins late is
        not away before their page opens)."""
        crowd = self._crowds.get(table.id)
        if crowd is not None:
            self._crowds[table.id] = crowd.sat_down(seat, self.clock())

    def players(self, table: Table) -> list[dict[str, object]]:
        """The state's `players` (docs/protocol-guide.md "Around the match"): a new list
        each time (`frames.EncodedParts.table` compares it by value)."""
        crowd = self.crowd(table.id)
        now = self.clock()
        match = table.match
        clocked = table.options.turn_seconds is not None
        days = table.options.move_days is not None
        out = []
        for seat, holder in enumerate(table.seats):
            # The computer never leaves; a person is there while any tab is open.
            connected = holder.computer is not None or crowd.connected[seat]
            left = crowd.left_at[seat]
            player: dict[str, object] = {
                "seat": seat,
                "name": holder.name,
                "connected": connected,
                "computer": holder.computer,
                "bot": holder.bot,
                "away_seconds": None if connected else max(0, int(now - (left or now))),
                "stand_in": match.presence.stand_in[seat],
            }
            if clocked:
                player["timeouts"] = match.presence.timeouts[seat]
            if days:
                deadline = holder.deadline
                player["deadline"] = None if deadline is None else int(deadline * 1000)
            out.append(player)
        return out

    def stamp(self, table: Table) -> tuple[dict[str, object], dict[str, object]] | None:
        """With a turn clock, the keys it adds to a state: the `hand` object's (the
        deadline of the action due) and the message's (the server's time); None
        without one."""
        if table.options.move_days is not None:  # deadlines are the players'
            return {}, {"server_time": int(self.clock() * 1000)}
        if table.options.turn_seconds is None:
            return None
        deadline = self.crowd(table.id).deadline
        return (
            {"turn_deadline": None if deadline is None else int(deadline * 1000)},
            {"server_time": int(self.clock() * 1000)},
        )

    def absent_now(self, table: Table) -> list[bool]:
        """Which seats are away by absence now (a person's seat only)."""
        crowd = self.crowd(table.id)
        left = crowd.left_at
        if left[0] is None and left[1] is None and table.options.move_days is None:
            # A live table whose seats are both there (every move of a game played
            # in person): nobody is away, with no clock read.
            return [False, False]
        rule, now = self.rule_for(table), self.clock()
        out = [False, False]
        for seat in range(len(table.seats)):
            if table.human(seat) and rule.away(crowd, seat, now):
                out[seat] = True
        return out

    def _set_deadline(self, table: Table) -> None:
        """A new deadline when a new action is due (a move of the hand or a ready signal,
        not a stand-in asked for meanwhile); none when nothing is."""
        crowd = self._crowds.get(table.id)
        if crowd is None:
            return
        now_due = due(table)
        hand = table.match.hand
        if now_due is None or hand is None:
            if crowd.deadline is not None or crowd.deadline_key is not None:
                self._crowds[table.id] = replace(
                    crowd, deadline=None, deadline_version=None, deadline_key=None
                )
            return
        key = (hand.number, hand.moves, now_due[0], table.match.status)
        deadline = crowd.deadline
        if key != crowd.deadline_key:
            assert table.options.turn_seconds is not None
            deadline = self.clock() + table.options.turn_seconds
        self._crowds[table.id] = replace(
            crowd, deadline=deadline, deadline_version=now_due[1], deadline_key=key
        )

    # --- the timers ---------------------------------------------------------------
    def schedule(self, table: Table) -> None:
        """Note when `table` next needs a look (after any change of it or its presence)."""
        crowd = self.crowd(table.id)
        when: float | None = None
        if crowd.deadline is not None and table.id not in self._moving:
            when = crowd.deadline
        left = crowd.left_at
        days = table.options.move_days
        # A live table with both seats there has no look due but its turn clock's
        # (`Live.next_look` is None for them; `_soon_at` is for tables played over days).
        if days is not None or left[0] is not None or left[1] is not None:
            rule, absent = self.rule_for(table), table.match.presence.absent
            for seat in range(len(table.seats)):
                if table.human(seat) and not absent[seat]:
                    look = rule.next_look(crowd, seat)
                    soon = self._soon_at(table, seat)
                    if soon is not None and (look is None or soon < look):
                        look = soon
                    if look is not None and (when is None or look < when):
                        when = look
        if self.looked is not None and days is not None:
            self.looked(table, when)
        if when is None:
            self._due.pop(table.id, None)
            return
        earlier = when < self._due.get(table.id, float("inf"))
        self._due[table.id] = when
        if earlier and self._wake is not None:
            self._wake.set()

    def changed(self, table: Table, seats: Sequence[int] | None = None) -> None:
        """The writer's listener, told first: a change of the whole table sets the
        deadline of the action due now (the hub's state shows it) and the next look."""
        if seats is None:
            self._set_deadline(table)
            if table.options.move_days is not None:
                # A seat that was away and has acted before a claim is not away now.
                self.refresh_away(table, broadcast=False)
            self.schedule(table)

    def next_due(self) -> float | None:
        return min(self._due.values(), default=None)

    async def tick(self, *, wait: bool = False) -> list[asyncio.Task[None]]:
        """Do what is due by the clock: seats that became away are shown so, actions
        whose deadline passed are made by the computer. `wait`: return once every
        timeout move under way is made (tests); else they go on in the background."""
        now = self.clock()
        moves: list[asyncio.Task[None]] = []
        for table_id, when in list(self._due.items()):
            if when > now:
                continue
            table = self._held(table_id)
            if table is None:
                self._due.pop(table_id, None)
                if self.fetch is not None and table_id not in self._fetching:
                    self._fetching.add(table_id)  # out of memory: loaded, then looked at
                    load = asyncio.get_running_loop().create_task(self._load(table_id))
                    self._moves.add(load)
                    load.add_done_callback(self._moves.discard)
                continue
            self.refresh_away(table)
            self._tell_soon(table, now)
            deadline = self.crowd(table_id).deadline
            if deadline is not None and deadline <= now and table.id not in self._moving:
                move = asyncio.get_running_loop().create_task(self._timeout(table))
                self._moves.add(move)
                move.add_done_callback(self._moves.discard)
                moves.append(move)
            self.schedule(table)
        if wait and self._moves:
            # Those started here and any the loop started meanwhile.
            await asyncio.gather(*self._moves, return_exceptions=True)
        return moves

    def _soon_at(self, table: Table, seat: int) -> float | None:
        """When a quarter of the seat's time is left, if not told of yet."""
        days = table.options.move_days
        deadline = table.seats[seat].deadline
        if days is None or deadline is None or self.soon is None:
            return None
        if self._soon_told.get((table.id, seat)) == deadline or self.clock() >= deadline:
            return None
        return deadline - days * self.seconds_per_day / 4

    def _tell_soon(self, table: Table, now: float) -> None:
        for seat in range(len(table.seats)):
            at = self._soon_at(table, seat)
            deadline = table.seats[seat].deadline
            if at is None or deadline is None or not at <= now < deadline:
                continue
            self._soon_told[(table.id, seat)] = deadline
            assert self.soon is not None
            self.soon(table, seat)

    async def _timeout(self, table: Table) -> None:
        """The deadline passed: the computer makes that one move for the seat."""
        now_due = due(table)
        version = self.crowd(table.id).deadline_version
        if now_due is None or version is None or now_due[1] != version:
            return
        seat = now_due[0]
        if table.id in self._moving:
            return
        assert self._act is not None and self._choose is not None
        self._moving.add(table.id)
        self._due.pop(table.id, None)
        try:
            ready = [a for a in table.match.playable(seat) if a.kind in READY_KINDS]
            # Between hands the move is the ready signal itself: nothing to think about.
            action = ready[0] if ready else await self._choose(table, seat)
            # At the version the deadline was set for: a move of the seat's own made
            # meanwhile makes this one stale, so the clock moves at most once.
            await self._act(table, seat, action, version, by="timeout")
            self.timeouts += 1
            log.info("table %s seat %d: turn clock ran out", short(table.id), seat)
        except Refusal as exc:
            log.debug("table %s: timeout move not made (%s)", short(table.id), exc)
        finally:
            self._moving.discard(table.id)
            if self._held(table.id) is table:
                self.schedule(table)

    # --- away and back (docs/protocol-guide.md "Around the match") -----------------
    def refresh_away(self, table: Table, *, broadcast: bool = True) -> bool:
        """Tell the match which seats are away by absence now; True when that changed
        (and then, with `broadcast`, everybody gets the state: claim may be open)."""
        absent = self.absent_now(table)
        if absent == table.match.presence.absent:
            return False
        table.match.presence.absent = absent
        if broadcast:
            self._broadcast(table)
        return True

    def look(self, table: Table) -> None:
        """After a connection of `table` opened or closed, or a seat said hello again:
        who is away now, and the stand-in of a seat that is back ends."""
        if self._held(table.id) is not table:
            return
        self.refresh_away(table)
        crowd = self.crowd(table.id)
        for seat in range(len(table.seats)):
            if table.match.presence.stand_in[seat] and crowd.connected[seat]:
                assert self._start is not None
                self._start(self.back(table, seat))
        self.schedule(table)

    async def back(self, table: Table, seat: int) -> None:
        """The seat is back: the computer stops standing in for it (stored in the log)."""
        came_back = False

        def come_back() -> None:
            nonlocal came_back
            came_back = table.match.back(seat)  # False: not (or no longer) standing in

        assert self._change is not None
        await self._change(table, come_back)
        if came_back:
            log.info("table %s seat %d is back; the stand-in stops", short(table.id), seat)

    # --- the loop ------------------------------------------------------------------
    def start(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self.run())

    async def run(self) -> None:
        assert self._wake is not None
        while True:
            now = self.clock()
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
        self._crowds.clear()
        self._due.clear()


_NOBODY = Crowd()
