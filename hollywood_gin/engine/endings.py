"""Ending a match early (PROTOCOL.md "Around the match"): `resign`, `claim` and
`stand_in`, when they are open, and what they do to the match.

Plain functions on the `Match`, which keeps the state (`endings`, `absent`,
`timeouts`, `stand_in`, `ended`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hollywood_gin.engine import deals
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.dealer import check_seat
from hollywood_gin.engine.errors import IllegalAction
from hollywood_gin.engine.events import Back
from hollywood_gin.engine.views import Ended
from hollywood_gin.engine.vocabulary import AWAY_TIMEOUTS

if TYPE_CHECKING:
    from hollywood_gin.engine.match import Match

_RESIGN, _CLAIM, _STAND_IN = Action.of("resign"), Action.of("claim"), Action.of("stand_in")


def away(match: Match, seat: int) -> bool:
    """Whether `seat` is away: absent for the claim time, or timed out 3 times running."""
    return match.absent[seat] or match.timeouts[seat] >= AWAY_TIMEOUTS


def open_endings(match: Match, seat: int) -> list[Action]:
    """The end actions open to `seat` now (after its other actions in `legal`)."""
    if not match.endings or match.status not in ("playing", "hand_over"):
        return []
    out = [_RESIGN]
    if away(match, 1 - seat):
        out.append(_CLAIM)
        if not match.stand_in[1 - seat]:
            out.append(_STAND_IN)
    return out


def end_early(match: Match, seat: int, act: Action) -> None:
    """`resign`, `claim` or `stand_in` by `seat` (PROTOCOL.md "Around the match")."""
    open_now = {a.kind for a in open_endings(match, seat)}
    if match._trusted and match.endings and match.status in ("playing", "hand_over"):
        open_now |= {"claim", "stand_in"}  # the log says the other seat was away then
    if act.kind not in open_now:
        raise IllegalAction(f"{act.kind} is not open now")
    match._log_action(seat, act, None)
    match.version += 1
    if act.kind == "stand_in":
        match.stand_in[1 - seat] = True
        return
    hand = match.hand
    if match.status == "playing" and hand is not None:
        # The hand is left unplayed: no result, the same dealer deals again, from
        # a deal committed to now (as at the end of a hand).
        match._next_dealer = hand.dealer
        deals.open_deal(match, hand.number + 1)
    match.ended = Ended("resign" if act.kind == "resign" else "claim", seat)
    match.status = "match_over"
    match.ready = [False, False]


def match_winner(match: Match) -> int | None:
    """The sheet's winner, or the winner of a match ended by `resign` or `claim`."""
    ended = match.ended
    if ended is not None:
        return 1 - ended.seat if ended.by == "resign" else ended.seat
    return match.sheet.match_winner


def back(match: Match, seat: int) -> bool:
    """`Match.back`: the stand-in for `seat` stops; True: it was standing in."""
    seat = check_seat(seat)
    if not match.stand_in[seat]:
        return False
    match.stand_in[seat] = False
    match.log.append(Back(seat))
    return True
