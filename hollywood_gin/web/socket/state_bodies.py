"""The state's wire description, as pydantic models.

The engine's views (`hollywood_gin/engine/views.py`) are the truth of a state's
shape: the body, its `table` and its `hand` are made here from the views' wire
table (`STATE_KEYS`), and the values inside them (moves, a hand's result, the
sheet, players) are `*Body` models written out (named apart from the engine's
types they describe). They allow extra fields, because clients ignore
what they do not know (docs/protocol-guide.md "Compatibility": fields may be added, never renamed or
removed); `tests/web/test_wire_schema.py` fails when the server sends a field no
model names. The socket's other messages and the types every wire model shares are
in `hollywood_gin/web/socket/messages.py`, the HTTP bodies in
`hollywood_gin/web/http/bodies.py`; `docs/protocol.md` is generated from the three
by `scripts/gen_protocol.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

# `Literal` and the words, card and seat types below are also named by the state's
# wire table as text (`Key.type`), which pydantic resolves in this module.
from typing import TYPE_CHECKING, Annotated, Any, Literal  # noqa: F401

from pydantic import Field, create_model

from hollywood_gin.engine.views import (
    HAND_BACK,
    HAND_FRONT,
    MINE_KEYS,
    STATE_KEYS,
    TABLE_KEYS,
    Fresh,
    Key,
    Required,
)
from hollywood_gin.engine.vocabulary import (  # noqa: F401
    ComputerId,
    EndedBy,
    HandKind,
    Mover,
    Phase,
    PlayKind,
    Rules,
    Scoring,
    Status,
    Target,
)
from hollywood_gin.web.socket.messages import (  # noqa: F401
    ActionBody,
    CardText,
    ErrorMessage,
    Hex,
    HintMessage,
    Outbound,
    Pong,
    ReactionMessage,
    SeatNumber,
)


def no_entropy() -> list[str | None]:
    return [None, None]


class PlayerBody(Outbound):
    seat: SeatNumber
    name: str
    connected: bool = Field(description="a person: any tab open; a computer: always")
    computer: ComputerId | None = Field(
        description="the computer opponent's id (GET /api/computers; easy, normal and hard"
        " among them); null for a person"
    )
    bot: bool = Field(
        default=False,
        description="a program plays this seat: it joined with `bot: true` (the site's own"
        " computer is `computer`, not a bot)",
    )
    away_seconds: int | None = Field(
        default=None,
        description="whole seconds since the seat's last connection closed; null while connected",
    )
    stand_in: bool = Field(default=False, description="the computer plays this away seat's moves")
    timeouts: int | None = Field(
        default=None,
        description="with a turn clock: the seat's timeouts in a row (reset by its own move)",
    )
    deadline: int | None = Field(
        default=None,
        description="a table played over days: the Unix time in ms by which the seat must"
        " act; null while nothing is asked of it (absent on a live table)",
    )


class EndedBody(Outbound):
    by: EndedBy
    seat: SeatNumber = Field(description="the seat that resigned or claimed")


class MoveBody(Outbound):
    """A public move of the hand (`last_action`, an entry of `events`)."""

    seat: SeatNumber
    kind: PlayKind
    card: CardText | None = Field(default=None, description="only where it was public")
    by: Mover | None = Field(
        default=None,
        description=(
            "who made the move for the seat: `timeout` (its turn clock ran out) or"
            " `stand_in` (the computer standing in while it is away); absent when the"
            " seat moved itself"
        ),
    )


class LayOffBody(Outbound):
    card: CardText
    meld: int = Field(description="index into the knocker's melds")


class SeatResultBody(Outbound):
    melds: list[list[CardText]]
    deadwood: list[CardText]
    deadwood_value: int
    deadwood_before_layoffs: int = Field(
        description="the least deadwood with the seat's own melds only, before laying off"
    )
    layoffs: list[LayOffBody]


class DeckRevealBody(Outbound):
    deck: list[CardText] = Field(min_length=52, max_length=52)
    salt: str
    server_secret: Hex | None = Field(
        default=None,
        description="the deal's 32-byte server secret (hex); null for a test deck or an "
        "older deal, not derived",
    )
    entropy: list[Hex | None] = Field(
        default_factory=no_entropy,
        description="each seat's entropy (hex) by seat, null where it sent none",
    )


class NextDealBody(Outbound):
    commitment: Hex = Field(description="hex SHA-256 of the next deal's 32-byte server secret")


class HandResultBody(Outbound):
    kind: HandKind
    knocker: SeatNumber | None
    winner: SeatNumber | None
    points: int
    seats: list[SeatResultBody]
    knock_discard: CardText | None = Field(default=None, description="the face-down discard")
    bonus: int = Field(description="the gin or undercut bonus inside `points` (25), else 0")
    deck_reveal: DeckRevealBody
    games: list[int] = Field(default_factory=list, description="sheet games the points went to")


class SheetSeatBody(Outbound):
    entries: list[int]
    points: int
    bonus: int
    game_bonus: int = Field(description="the part of `bonus` for winning the game (100 or 200)")
    line_bonus: int = Field(description="the part of `bonus` for won hands (25 each)")


class SheetGameBody(Outbound):
    seats: list[SheetSeatBody]
    finished: bool
    winner: SeatNumber | None


class SheetBody(Outbound):
    games: list[SheetGameBody]
    totals: list[int]
    match_winner: SeatNumber | None


def _body(name: str, keys: Sequence[Key], doc: str | None = None) -> type[Outbound]:
    """The model of an object of the state, from its keys (`engine.views`): each key a
    field of its wire type, described as the table says, with the default a reader
    takes when it is absent (keys left out while None: None)."""
    fields: dict[str, Any] = {}
    for key in keys:
        kwargs: dict[str, Any] = {}
        if isinstance(key.default, Fresh):
            kwargs["default_factory"] = key.default.make
        elif key.default is not Required:
            kwargs["default"] = key.default
        elif key.omitted:
            kwargs["default"] = None
        if key.doc is not None:
            kwargs["description"] = key.doc
        fields[key.name] = (key.type, Field(**kwargs))
    model: type[Outbound] = create_model(
        name, __base__=Outbound, __module__=__name__, __doc__=doc, **fields
    )
    return model


# The state's objects, made from the state's wire table next to the views
# (`engine.views.STATE_KEYS`): the truth of their keys, order and descriptions.
TableBody = _body("TableBody", TABLE_KEYS)
HandBody = _body("HandBody", (*HAND_FRONT, *MINE_KEYS, *HAND_BACK))
if TYPE_CHECKING:
    StateMessage = Outbound
else:
    StateMessage = _body(
        "StateMessage",
        STATE_KEYS,
        "The whole view of one seat (or a spectator), sent after every change: never a diff.",
    )


ServerMessage = Annotated[
    StateMessage | ErrorMessage | Pong | ReactionMessage | HintMessage,
    Field(discriminator="type"),
]
