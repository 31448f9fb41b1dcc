"""Every wire message as a pydantic model: the one source of the JSON Schemas.

Inbound models forbid extra fields and are parsed once, at the edge, and turned
into the engine's values there (`to_action()`, `to_options()`). Outbound models
describe what the server sends: the engine's views (`hollywood_gin/engine/views.py`)
are the truth of a state's shape, and these `*Body` models mirror them for the
schema (named apart from the engine's types they describe). They allow extra
fields, because clients ignore what they do not know (PROTOCOL.md: fields may be
added, never renamed or removed); `tests/web/test_wire_schema.py` fails when the
server sends a field no model names. `docs/protocol.md` is generated from this
module by `scripts/gen_protocol.py`.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    TypeAdapter,
    model_validator,
)

from hollywood_gin.engine.actions import Action as EngineAction
from hollywood_gin.engine.actions import ActionKind
from hollywood_gin.engine.actions import knock as knock_action
from hollywood_gin.engine.cards import Card as EngineCard
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.vocabulary import (
    TURN_SECONDS,
    EndedBy,
    HandKind,
    Phase,
    PlayKind,
    Reaction,
    Rules,
    Scoring,
    Status,
    Strength,
    Target,
)
from hollywood_gin.web import lookalikes

NAME_MAX = 24
TOKEN_MAX = 128

CardText = Annotated[
    str,
    StringConstraints(pattern=r"^[A2-9TJQK][CDHS]$"),
    Field(description="rank A23456789TJQK then suit CDHS, e.g. 7H"),
]
SeatNumber = Annotated[int, Field(ge=0, le=1)]
EntropyHex = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9a-fA-F]{32}$"),
    Field(description="a seat's part of the next deal: 16 random bytes as 32 hex characters"),
]
Hex = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]*$")]


def _no_entropy() -> list[str | None]:
    return [None, None]


# The site's languages (hollywood_gin/web/i18n.py LANGUAGES; a test keeps the two equal).
Language = Literal["en", "de", "da", "hu", "et"]
ErrorCode = Literal[
    "bad_message",
    "not_seated",
    "not_your_turn",
    "illegal_action",
    "stale_version",
    "unknown_table",
    "rate_limited",
    "too_large",
    "server_error",
]
HttpErrorCode = Literal[
    "bad_request",
    "unknown_table",
    "unknown_hand",
    "unknown_seat",
    "table_full",
    "rate_limited",
    "not_found",
    "method_not_allowed",
    "not_seated",
    "forbidden_origin",
    "too_large",
    "unsupported_media_type",
    "bad_host",
    "no_bots",
    "busy",
]

# Characters that draw nothing: format characters (zero-width spaces and joiners,
# bidi controls, U+061C ...), controls, line and paragraph separators, private use
# and lone surrogates.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Zl", "Zp", "Co", "Cs"})
# Letters and symbols that render as blank space (Hangul fillers, the braille blank).
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
# The computer's seat is named "Computer (strength)": no person may look like it.
_COMPUTER = "computer"


def _visible(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LNPS" and ch not in _BLANK_GLYPHS


def _skeleton(name: str) -> str:
    """Letters and digits only, compatibility-folded and case-folded."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", name).casefold() if ch.isalnum())


def clean_name(value: str) -> str | None:
    """Trim; refuse invisible characters, names with nothing visible, names over 24
    characters and names that imitate the computer; empty means the default."""
    name = value.strip()
    for ch in name:
        if unicodedata.category(ch) in _INVISIBLE_CATEGORIES:
            raise ValueError("a name may not contain control or invisible format characters")
    if len(name) > NAME_MAX:
        raise ValueError(f"a name has at most {NAME_MAX} characters")
    if name and not any(_visible(ch) for ch in name):
        raise ValueError("a name needs at least one visible character")
    # Issue 28: marks that draw nothing, words mixing alphabets ("Воb": Cyrillic В, о),
    # and any lookalike of the computer's name (TR39 confusables: "C0mputer", "Cοmputer").
    if lookalikes.invisible_mark(name) is not None:
        raise ValueError("a name may not contain invisible characters")
    if lookalikes.mixed_script_word(name) is not None:
        raise ValueError("a word of a name may not mix alphabets")
    if _skeleton(name).startswith(_COMPUTER) or lookalikes.skeleton(name).startswith(
        _COMPUTER_SKELETON
    ):
        raise ValueError("that name is the computer's")
    return name or None


_COMPUTER_SKELETON = lookalikes.skeleton(_COMPUTER)


Name = Annotated[str, AfterValidator(clean_name), Field(description="trimmed, 1 to 24 characters")]


class Inbound(BaseModel):
    # Strict: `"version": true`, "1" and 1.0 are not the integer 1 (issue 28); a string
    # is not a number, a number not a string.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Outbound(BaseModel):
    model_config = ConfigDict(extra="allow")


# --- actions (the `action` of an action message; `legal` lists them) ----------------
class PlainAction(Inbound):
    """An action that is its kind alone."""

    kind: ActionKind

    def to_action(self) -> EngineAction:
        """The engine's value of this action (the one conversion of a received action)."""
        return EngineAction.of(self.kind)


class TakeUpcard(PlainAction):
    kind: Literal["take_upcard"]


class Pass(PlainAction):
    kind: Literal["pass"]


class DrawStock(PlainAction):
    kind: Literal["draw_stock"]


class DrawDiscard(PlainAction):
    kind: Literal["draw_discard"]


class Discard(Inbound):
    kind: Literal["discard"]
    card: CardText

    def to_action(self) -> EngineAction:
        return EngineAction.of("discard", EngineCard.parse(self.card))


class Knock(Inbound):
    kind: Literal["knock"]
    discard: CardText
    melds: list[Annotated[list[CardText], Field(min_length=3, max_length=10)]] | None = Field(
        default=None, max_length=3, description="the knocker's own arrangement; default: the best"
    )
    deadwood: int | None = Field(
        default=None, description="in `legal` only, for display; ignored when sent"
    )

    def to_action(self) -> EngineAction:
        # A card twice in a meld is the engine's to refuse (after the version check).
        melds = None if self.melds is None else [parse_texts(m) for m in self.melds]
        return knock_action(EngineCard.parse(self.discard), melds)


class NextHand(PlainAction):
    kind: Literal["next_hand"]
    entropy: EntropyHex | None = Field(
        default=None, description="the seat's part of the next deal (`next_deal`)"
    )


class NewMatch(PlainAction):
    kind: Literal["new_match"]
    entropy: EntropyHex | None = Field(
        default=None, description="the seat's part of the next match's first deal"
    )


class Resign(PlainAction):
    """End the match at once, won by the other seat (status `playing` or `hand_over`)."""

    kind: Literal["resign"]


class Claim(PlainAction):
    """End the match at once, won by the claimer (the other seat is away)."""

    kind: Literal["claim"]


class StandIn(PlainAction):
    """The computer (normal) plays the away seat's moves until it says hello again."""

    kind: Literal["stand_in"]


ActionBody = Annotated[
    TakeUpcard
    | Pass
    | DrawStock
    | DrawDiscard
    | Discard
    | Knock
    | NextHand
    | NewMatch
    | Resign
    | Claim
    | StandIn,
    Field(discriminator="kind"),
]


def parse_texts(cards: list[str]) -> list[EngineCard]:
    """Cards of validated notation, repeats kept (refused where the engine says so)."""
    return [EngineCard.parse(c) for c in cards]


# --- client to server -----------------------------------------------------------------
class Hello(Inbound):
    type: Literal["hello"]
    token: Annotated[str, StringConstraints(max_length=TOKEN_MAX)] | None = None
    version: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="the last state version this client saw (0 or absent: none)"
    )


class ActionMessage(Inbound):
    type: Literal["action"]
    version: Annotated[int, Field(ge=0)] = Field(
        description="the state version the action was chosen on"
    )
    action: ActionBody


class Arrange(Inbound):
    type: Literal["arrange"]
    cards: list[CardText] = Field(max_length=11, description="a permutation of your cards")


class Ping(Inbound):
    type: Literal["ping"]


class React(Inbound):
    """A preset reaction, sent to every connection of the table; not stored."""

    type: Literal["react"]
    reaction: Reaction


ClientMessage = Annotated[
    Hello | ActionMessage | Arrange | Ping | React, Field(discriminator="type")
]
CLIENT_MESSAGE: TypeAdapter[Hello | ActionMessage | Arrange | Ping | React] = TypeAdapter(
    ClientMessage
)


# --- server to client -----------------------------------------------------------------
class ErrorMessage(Outbound):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    version: int | None = Field(description="the table's current state version")


class Pong(Outbound):
    type: Literal["pong"] = "pong"
    build: str = Field(
        description="the server's build (version and commit): a page served by another"
        " build should be reloaded"
    )


class ReactionMessage(Outbound):
    """A seat's reaction, to every connection of the table (at most one per seat per 2 s)."""

    type: Literal["reaction"] = "reaction"
    seat: SeatNumber
    reaction: Reaction


class PlayerBody(Outbound):
    seat: SeatNumber
    name: str
    connected: bool = Field(description="a person: any tab open; a computer: always")
    computer: Strength | None = Field(description="the computer's strength; null for a person")
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


class MoveBody(Outbound):
    """A public move of the hand (`last_action`, an entry of `events`)."""

    seat: SeatNumber
    kind: PlayKind
    card: CardText | None = Field(default=None, description="only where it was public")


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
        default_factory=_no_entropy,
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


# --- HTTP bodies ------------------------------------------------------------------------
class CreateTable(Inbound):
    rules: Rules = "standard"
    scoring: Scoring = "hand"
    target: Target = 100
    name: Name | None = None
    computer: Strength | None = Field(
        default=None, description="seat a computer opponent at seat 1 and start at once"
    )
    lang: Language | None = Field(
        default=None,
        description="the creator's page language, for the link preview; "
        "else the language cookie, else Accept-Language",
    )
    turn_seconds: Annotated[StrictInt, Field(ge=TURN_SECONDS[0], le=TURN_SECONDS[1])] | None = (
        Field(default=None, description="a turn clock: seconds per action (null: no clock)")
    )
    entropy: EntropyHex | None = Field(default=None, description="the creator's part of deal 1")
    bot: StrictBool = Field(default=False, description="the creator's seat is played by a program")
    bots: StrictBool = Field(
        default=True, description="false: a bot's join is refused (403 `no_bots`)"
    )

    def to_options(self) -> Options:
        """The engine's options of this body (the one conversion of the table's choices)."""
        return Options(self.rules, self.scoring, self.target, self.turn_seconds)


class CreateTableWithHooks(CreateTable):
    """`POST /api/tables` when the server runs with test hooks on; never in production."""

    test_decks: list[Annotated[list[CardText], Field(min_length=52, max_length=52)]] | None = Field(
        default=None, max_length=200, description="deck orders for the successive deals"
    )
    test_first_dealer: SeatNumber | None = None
    test_secrets: list[Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]] | None = Field(
        default=None,
        max_length=200,
        description="server secrets (hex) for the successive derived deals",
    )

    @model_validator(mode="after")
    def _whole_decks(self) -> CreateTableWithHooks:
        for deck in self.test_decks or ():
            if len(set(deck)) != 52:
                raise ValueError("each test deck holds the 52 cards once each")
        return self


class TableCreated(Outbound):
    table_id: str
    url: str = Field(description="the share link, /t/{id} on this host")
    seat: Literal[0]
    token: str
    next_deal: NextDealBody | None = Field(
        default=None, description="the commitment to the first deal (absent: test decks)"
    )


class JoinTable(Inbound):
    name: Name | None = None
    entropy: EntropyHex | None = Field(default=None, description="the joiner's part of deal 1")
    bot: StrictBool = Field(default=False, description="a program takes this seat")


class SeatTaken(Outbound):
    seat: Literal[1]
    token: str


class SeatComputer(Inbound):
    strength: Strength = "normal"


class ComputerSeated(Outbound):
    seat: Literal[1]
    computer: Strength


class TablePublic(Outbound):
    """`GET /api/tables/{id}`: public facts only, never a card or a token."""

    id: str
    rules: Rules
    scoring: Scoring
    target: Target
    status: Status
    version: int
    players: list[PlayerBody]
    open_seats: list[SeatNumber]
    bots: bool = Field(default=True, description="whether a bot may take the free seat")
    turn: SeatNumber | None = Field(
        default=None, description="the seat to move while a hand is played, else null"
    )


class RecordedAction(Outbound):
    seat: SeatNumber
    action: ActionBody


class RecordedReshuffle(Outbound):
    """`hand` scoring: the discard pile under its top became the stock."""

    after: int = Field(description="how many of the hand's actions came before it")
    stock: list[CardText] = Field(description="the new stock, top card first")


class OptionsBody(Outbound):
    """A table's options (RULES.md §3)."""

    rules: Rules
    scoring: Scoring
    target: Target
    turn_seconds: int | None = Field(
        default=None, description="the turn clock's seconds per action (absent: no clock)"
    )


class HandRecord(Outbound):
    """`GET /api/tables/{id}/hands/{n}`: everything needed to replay a finished hand."""

    options: OptionsBody
    number: int
    dealer: SeatNumber
    deck: list[CardText]
    salt: str
    server_secret: Hex | None = Field(default=None, description="as in `deck_reveal`")
    entropy: list[Hex | None] = Field(
        default_factory=_no_entropy, description="as in `deck_reveal`"
    )
    actions: list[RecordedAction]
    reshuffles: list[RecordedReshuffle] = Field(
        default_factory=list, description="`hand` scoring: each reshuffle, in order"
    )
    result: HandResultBody | None = Field(description="the hand's result, as in the state")


class ReviewedAction(Outbound):
    """An action in a review: its kind, and the card of a discard or a knock."""

    kind: str
    card: CardText | None = None


class ReviewExpected(Outbound):
    chosen: float
    best: float


class ReviewDecision(Outbound):
    """One decision of the seat; `index` is its position in the hand record's actions."""

    index: int
    phase: str
    chosen: ReviewedAction
    best: ReviewedAction
    expected: ReviewExpected
    loss: float
    label: Literal["inaccuracy", "mistake", "blunder"] | None


class ReviewLuck(Outbound):
    """Per seat: the deal's least deadwood, how much its stock draws lowered it, how
    many stock draws it made."""

    start_deadwood: list[int]
    stock_gain: list[int]
    stock_draws: list[int]


class ReviewSummary(Outbound):
    decisions: int
    loss: float
    inaccuracies: int
    mistakes: int
    blunders: int
    luck: ReviewLuck | None = None


class HandReview(Outbound):
    """`GET /api/tables/{id}/hands/{n}/review?seat=s`: the coach's review of one seat's
    decisions (PROTOCOL.md "Hand review")."""

    hand: int
    seat: SeatNumber
    decisions: list[ReviewDecision]
    summary: ReviewSummary


class ReviewComputing(Outbound):
    """`202` while the review is computed: ask again a second later."""

    status: Literal["computing"]


class ErrorBody(Outbound):
    error: HttpErrorCode
    message: str
