"""The socket's messages as pydantic models, and the types every wire model shares.

Inbound models forbid extra fields and are parsed once, at the edge, and turned
into the engine's values there (`to_action()`). This module holds what a client
sends on the socket (hello, action and the actions, arrange, ping, react, with the
cleaning of names) and the small messages the server sends besides the state
(error, pong, reaction). The state's wire description is in
`hollywood_gin/web/socket/state_bodies.py`, the HTTP bodies in
`hollywood_gin/web/http/bodies.py`. Outbound models allow extra fields, because
clients ignore what they do not know (docs/protocol-guide.md "Compatibility": fields
may be added, never renamed or removed). `docs/protocol.md` is generated from the three modules by
`scripts/gen_protocol.py`.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    create_model,
)

from hollywood_gin.engine.actions import Action as EngineAction
from hollywood_gin.engine.actions import ActionKind
from hollywood_gin.engine.actions import knock as knock_action
from hollywood_gin.engine.cards import Card as EngineCard
from hollywood_gin.engine.vocabulary import ACTION_WIRE, ActionWire, Reaction
from hollywood_gin.web.guard import lookalikes

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


# The site's languages (hollywood_gin/web/http/i18n.py LANGUAGES; a test keeps the two equal).
Language = Literal["en", "de", "da", "hu", "et"]
ErrorCode = Literal[
    "bad_message",
    "not_seated",
    "not_your_turn",
    "illegal_action",
    "not_allowed",
    "stale_version",
    "unknown_table",
    "rate_limited",
    "too_large",
    "server_error",
]

# Characters that draw nothing: format characters (zero-width spaces and joiners,
# bidi controls, U+061C ...), controls, line and paragraph separators, private use
# and lone surrogates.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Zl", "Zp", "Co", "Cs"})
# Letters and symbols that render as blank space (Hangul fillers, the braille blank).
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
# The computer's seat is named "Computer (strength)": no person may look like it.
_COMPUTER = "computer"
# Marks stacked on one character draw above and below the line, over the sheet
# (a name of "A" with 23 acutes did). Counted in NFD, so a precomposed letter brings its
# own: Vietnamese "ệ" is e + two diacritics. Diacritics (a non-zero canonical
# combining class) at most two; marks of any kind (Mn, Me) at most four, which
# Tibetan stacks need ("སྒྲོལ", Dolma: three subjoined letters and a vowel sign).
MAX_DIACRITICS = 2
MAX_MARKS = 4
# Single characters whose glyph is several ems wide in common fonts: a name of them
# draws across the sheet (24 x U+FDFD). No Unicode property gives a glyph's width
# (East Asian Width says only 1 or 2 columns), so these are the known ones, by range.
_WIDE_GLYPHS = (
    (0x0BF3, 0x0BFA),  # Tamil calendar and accounting signs (day, month, ..., number sign)
    (0x0E5A, 0x0E5B),  # Thai angkhankhu, khomut
    (0x2E3A, 0x2E3B),  # two-em and three-em dashes
    (0xA9C1, 0xA9CD),  # Javanese pada: ornamental punctuation (U+A9C5 pada luhur)
    (0xFD40, 0xFD4F),  # Arabic honorific ligatures (whole phrases in one glyph)
    (0xFDF0, 0xFDFB),  # Arabic word ligatures (Allah, Sallallahou alayhe wasallam, ...)
    (0xFDFD, 0xFDFF),  # Bismillah ar-Rahman ar-Raheem, and two more phrases
    (0x12000, 0x1254F),  # cuneiform signs and numbers
    (0x1D800, 0x1DAAF),  # Sutton SignWriting
)


def _visible(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LNPS" and ch not in _BLANK_GLYPHS


def stacked_marks(name: str) -> bool:
    """Whether a character of `name` carries more marks than `MAX_DIACRITICS`
    diacritics or `MAX_MARKS` marks in all (see there)."""
    diacritics = marks = 0
    for ch in unicodedata.normalize("NFD", name):
        if unicodedata.category(ch) in ("Mn", "Me"):
            marks += 1
            diacritics += unicodedata.combining(ch) != 0
            if diacritics > MAX_DIACRITICS or marks > MAX_MARKS:
                return True
        else:
            diacritics = marks = 0
    return False


def wide_glyph(name: str) -> str | None:
    """The first character of `name` drawn several ems wide (`_WIDE_GLYPHS`), else None."""
    for ch in name:
        code = ord(ch)
        if code >= 0x0BF3 and any(low <= code <= high for low, high in _WIDE_GLYPHS):
            return ch
    return None


def _skeleton(name: str) -> str:
    """Letters and digits only, compatibility-folded and case-folded."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", name).casefold() if ch.isalnum())


def clean_name(value: str) -> str | None:
    """Trim; refuse invisible characters, names with nothing visible, names over 24
    characters, marks stacked high, characters drawn very wide and names that imitate
    the computer; empty means the default."""
    name = value.strip()
    for ch in name:
        if unicodedata.category(ch) in _INVISIBLE_CATEGORIES:
            raise ValueError("a name may not contain control or invisible format characters")
    if len(name) > NAME_MAX:
        raise ValueError(f"a name has at most {NAME_MAX} characters")
    if name and not any(_visible(ch) for ch in name):
        raise ValueError("a name needs at least one visible character")
    # Names that look like others (docs/protocol-guide.md "Limits"): marks that draw
    # nothing, words mixing alphabets ("Воb": Cyrillic В, о), and any lookalike of the
    # computer's name (TR39 confusables: "C0mputer", "Cοmputer").
    if lookalikes.invisible_mark(name) is not None:
        raise ValueError("a name may not contain invisible characters")
    if lookalikes.mixed_script_word(name) is not None:
        raise ValueError("a word of a name may not mix alphabets")
    # Nothing that draws over the sheet, above, below or across.
    if stacked_marks(name):
        raise ValueError("a letter of a name may carry at most two accents")
    if wide_glyph(name) is not None:
        raise ValueError("a name may not contain characters drawn several letters wide")
    if _skeleton(name).startswith(_COMPUTER) or lookalikes.skeleton(name).startswith(
        _COMPUTER_SKELETON
    ):
        raise ValueError("that name is the computer's")
    return name or None


_COMPUTER_SKELETON = lookalikes.skeleton(_COMPUTER)


Name = Annotated[str, AfterValidator(clean_name), Field(description="trimmed, 1 to 24 characters")]


class Inbound(BaseModel):
    # Strict: `"version": true`, "1" and 1.0 are not the integer 1; a string
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


def _plain_model(kind: str, wire: ActionWire) -> type[PlainAction]:
    """The model of a kind without a card (`ACTION_WIRE`): its kind alone, or with
    the seat's entropy; named as the kind in CamelCase (`StandIn`)."""
    name = "".join(part.capitalize() for part in kind.split("_"))
    fields: dict[str, Any] = {"kind": (Literal[kind], ...)}
    if wire.entropy is not None:
        fields["entropy"] = (EntropyHex | None, Field(default=None, description=wire.entropy))
    return create_model(name, __base__=PlainAction, __module__=__name__, __doc__=wire.doc, **fields)


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


# Every action's model in `ACTION_KINDS`' order: the two that name a card written
# out above, the others made from their wire form.
_CARDED: dict[str, type[Inbound]] = {"discard": Discard, "knock": Knock}
_ACTION_MODELS: tuple[type[Inbound], ...] = tuple(
    _CARDED.get(kind) or _plain_model(kind, wire) for kind, wire in ACTION_WIRE.items()
)
if TYPE_CHECKING:
    ActionBody = PlainAction | Discard | Knock
else:
    ActionBody = Annotated[Union[_ACTION_MODELS], Field(discriminator="kind")]  # noqa: UP007


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


class Hint(Inbound):
    """A seat playing the computer asks the coach about its move now (answered with a
    `hint`; between two people `not_allowed`, from a spectator `not_seated`)."""

    type: Literal["hint"]


ClientMessage = Annotated[
    Hello | ActionMessage | Arrange | Ping | React | Hint, Field(discriminator="type")
]
CLIENT_MESSAGE: TypeAdapter[Hello | ActionMessage | Arrange | Ping | React | Hint] = TypeAdapter(
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


class HintChoice(Outbound):
    action: dict[str, object] = Field(description="an action as `legal` offers it")
    expected: float = Field(
        description="the seat's expected points for the hand after it, as in the hand review"
    )


class HintMessage(Outbound):
    """The coach's view of the seat's move now, from what that seat knows only."""

    type: Literal["hint"] = "hint"
    version: int = Field(description="the state version the hint is for")
    best: dict[str, object] = Field(description="the coach's choice, an action as `legal` has it")
    choices: list[HintChoice] = Field(description="every choice priced, best first")


class ReactionMessage(Outbound):
    """A seat's reaction, to every connection of the table (at most one per seat per 2 s)."""

    type: Literal["reaction"] = "reaction"
    seat: SeatNumber
    reaction: Reaction
