"""The public moves of a hand, as `hand` records them and the views show them.

Their own module, so `hand` (which makes them) and `views` (which shows them and
reads a hand's result) import without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from hollywood_gin.engine.vocabulary import PlayKind


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
