"""The state's wire description, as pydantic models.

The engine's views (`hollywood_gin/engine/views.py`) are the truth of a state's
shape, and these `*Body` models mirror them for the schema (named apart from the
engine's types they describe). They allow extra fields, because clients ignore
what they do not know (docs/protocol-guide.md "Compatibility": fields may be added, never renamed or
removed); `tests/web/test_wire_schema.py` fails when the server sends a field no
model names. The socket's other messages and the types every wire model shares are
in `hollywood_gin/web/messages.py`, the HTTP bodies in
`hollywood_gin/web/http_bodies.py`; `docs/protocol.md` is generated from the three
by `scripts/gen_protocol.py`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hollywood_gin.engine.vocabulary import (
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
from hollywood_gin.web.messages import (
    ActionBody,
    CardText,
    ErrorMessage,
    Hex,
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


class TableBody(Outbound):
    id: str
    rules: Rules
    scoring: Scoring
    target: Target
    status: Status
    players: list[PlayerBody]
    ended: EndedBody | None = Field(
        default=None, description="a match ended by resign or claim (absent when played out)"
    )
    move_days: int | None = Field(
        default=None, description="a table played over days: days per move (absent: live)"
    )


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


class HandBody(Outbound):
    number: int
    dealer: SeatNumber
    turn: SeatNumber | None
    phase: Phase
    knock_limit: int
    stock_count: int
    discard_top: CardText | None
    discard_count: int
    my_cards: list[CardText] | None = Field(default=None, description="absent for spectators")
    opponent_card_count: int | None = Field(default=None, description="absent for spectators")
    my_melds: list[list[CardText]] | None = Field(
        default=None, description="my melds for display (holding 11: of the ten kept)"
    )
    my_deadwood: int | None = Field(
        default=None, description="my deadwood (holding 11: after the best allowed discard)"
    )
    my_drawn: CardText | None = Field(
        default=None,
        description="the card I drew this turn (stock or pile), until my discard; absent"
        " otherwise, and never in another seat's state",
    )
    card_counts: list[int] = Field(description="cards held by seat 0 and seat 1")
    deck_commitment: str = Field(description='hex SHA-256 of salt + ":" + ",".join(deck)')
    last_action: MoveBody | None = None
    events: list[MoveBody] = Field(
        default_factory=list, description="this hand's public moves so far, oldest first"
    )
    result: HandResultBody | None = Field(default=None, description="when phase is over")
    turn_deadline: int | None = Field(
        default=None,
        description="with a turn clock: Unix ms by which the seat to act must act (null: none)",
    )


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


class StateMessage(Outbound):
    """The whole view of one seat (or a spectator), sent after every change: never a diff."""

    type: Literal["state"] = "state"
    version: int
    you: SeatNumber | None
    table: TableBody
    hand: HandBody | None = Field(default=None, description="absent before the first deal")
    legal: list[ActionBody]
    sheet: SheetBody
    ready: list[bool] = Field(description="who has sent next_hand / new_match")
    server_time: int | None = Field(
        default=None, description="with a turn clock: the server's time, Unix ms"
    )
    next_deal: NextDealBody | None = Field(
        default=None,
        description="between hands (and while waiting): the commitment to the next deal",
    )


ServerMessage = Annotated[
    StateMessage | ErrorMessage | Pong | ReactionMessage, Field(discriminator="type")
]
