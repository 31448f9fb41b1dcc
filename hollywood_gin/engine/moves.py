"""The public moves of a hand, as `hand` records them and the views show them.

Their own module, so `hand` (which makes them) and `views` (which shows them and
reads a hand's result) import without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from hollywood_gin.engine.vocabulary import Mover, PlayKind


# No `slots`: orjson writes plain dataclasses natively (slotted ones are ten times slower).
@dataclass(frozen=True)
class Move:
    """A public move of the hand (`last_action`, an entry of `events`): no card."""

    seat: int
    kind: PlayKind


@dataclass(frozen=True)
class CardMove(Move):
    """A public move whose card everyone sees: a take from the pile, a discard."""

    card: str


# A move the seat did not make itself, `by` the turn clock (`timeout`) or the computer
# standing in (`stand_in`). Subclasses, not a field with a default: the seat's own
# moves, nearly all of them, keep their wire shape (no `"by": null` in every event).
@dataclass(frozen=True)
class MoveFor(Move):
    """A public move made for the seat, without a card."""

    by: Mover


@dataclass(frozen=True)
class CardMoveFor(CardMove):
    """A public move made for the seat, with its card."""

    by: Mover


def move_of(seat: int, kind: PlayKind, card: str | None, by: Mover | None) -> Move:
    """The public move, of the right class for its card and its mover."""
    if by is None:
        return Move(seat, kind) if card is None else CardMove(seat, kind, card)
    return MoveFor(seat, kind, by) if card is None else CardMoveFor(seat, kind, card, by)
