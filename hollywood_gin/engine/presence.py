"""Whether each seat is there (docs/protocol-guide.md "Around the match"): away by absence or by
the turn clock, and whether the computer stands in for it.

A `Match` owns one `Presence` (`match.presence`) and tells it each move's `by`; the
presence opens `claim` and `stand_in` against an away seat. Absence is a fact of the
world, not of the log: the tables layer sets `absent` before each view and move. The
timeouts and stand-ins follow from the log (the `by` of its actions, `Back`), so a
replay rebuilds them, and each deal's snapshot carries them over a compaction.
"""

from __future__ import annotations

from collections.abc import Mapping

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.errors import BadAction, IllegalAction
from hollywood_gin.engine.events import Snapshot
from hollywood_gin.engine.vocabulary import AWAY_TIMEOUTS, MOVERS, Mover

_CLAIM, _STAND_IN = Action.of("claim"), Action.of("stand_in")
_BOTH = (_CLAIM, _STAND_IN)
_MOVERS: Mapping[object, Mover] = {m: m for m in MOVERS}


class Presence:
    """The two seats' absence, turn-clock timeouts and stand-ins."""

    __slots__ = ("absent", "stand_in", "timeouts", "trusted")

    def __init__(self) -> None:
        # Seats the tables layer finds away by absence (no connection for the claim time).
        self.absent = [False, False]
        # Consecutive turn-clock timeouts per seat, and the seats the computer stands in for.
        self.timeouts = [0, 0]
        self.stand_in = [False, False]
        # A replay believes the log's claims and stand-ins: absence is not in the log.
        self.trusted = False

    def away(self, seat: int) -> bool:
        """Whether `seat` is away: absent for the claim time, or timed out 3 times running."""
        return self.absent[seat] or self.timeouts[seat] >= AWAY_TIMEOUTS

    def against(self, seat: int) -> tuple[Action, ...]:
        """The end actions the other seat's being away opens to `seat`: `claim`, and
        `stand_in` unless the computer stands in for it already."""
        other = 1 - seat
        if self.trusted:
            return _BOTH  # the log says the other seat was away then
        if not (self.absent[other] or self.timeouts[other] >= AWAY_TIMEOUTS):  # `away`
            return ()
        return (_CLAIM,) if self.stand_in[other] else _BOTH

    def mover(self, seat: int, by: object) -> Mover | None:
        """Who moves for `seat` (None: the seat itself).

        :raises BadAction: `by` is not a mover.
        :raises IllegalAction: `stand_in`, and nobody stands in for the seat now.
        """
        if by is None:
            return None
        if not isinstance(by, str) or by not in _MOVERS:
            raise BadAction(f"unknown mover {str(by)[:20]!r}")
        if by == "stand_in" and not self.stand_in[seat]:
            raise IllegalAction("nobody stands in for this seat now")
        return _MOVERS[by]

    def moved(self, seat: int, by: Mover | None) -> None:
        """A move of `seat` went into the log: a timeout counts; the seat's own move
        resets its timeouts and ends a stand-in (the seat plays again itself)."""
        if by == "timeout":
            self.timeouts[seat] += 1
        elif by is None:
            self.timeouts[seat] = 0
            self.stand_in[seat] = False

    def back(self, seat: int) -> bool:
        """A connection of `seat` said hello: the stand-in stops. True: it was standing in."""
        if not self.stand_in[seat]:
            return False
        self.stand_in[seat] = False
        return True

    def carried(self) -> tuple[tuple[int, int] | None, tuple[bool, bool] | None]:
        """The timeouts and stand-ins a snapshot carries to the next deal: each only
        when some seat has any (so the logs of tables that never had any stay as they were)."""
        timeouts, stand_in = self.timeouts, self.stand_in
        return (
            (timeouts[0], timeouts[1]) if any(timeouts) else None,
            (stand_in[0], stand_in[1]) if any(stand_in) else None,
        )

    def restore(self, snapshot: Snapshot) -> None:
        """Take up the timeouts and stand-ins `snapshot` carries."""
        self.timeouts = list(snapshot.timeouts or (0, 0))
        self.stand_in = list(snapshot.stand_in or (False, False))
