"""What a seat may see, as frozen values: the `state` body, typed
(docs/protocol-guide.md "The state").

`Match.view(seat)` builds a `View`; nothing in it can be changed, so views may
share their parts (every view of one change shares one `SheetView`) and a reader
(the hub, a bot) needs no convention to leave them alone. `View.wire()` is the
body in the protocol's key order; the parts whose keys are always present
(`SheetView`, `Move`) are plain dataclasses that orjson writes as they are, as
fast as dicts, and the keys that only some views carry (a seat's own cards, a
hand's result, a move's card) are left out here rather than sent as null.

The values built for every view (`View`, `Mine`, `HandView`, `TableView`) are
named tuples: as immutable and as typed as a frozen dataclass, and built in
less than half its time (a frozen dataclass sets each field through
`object.__setattr__`), which the server pays for every seat on every move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from hollywood_gin.engine.actions import Action, parse_action
from hollywood_gin.engine.cards import Card, parse_cards
from hollywood_gin.engine.hand import HandResult, SeatResult
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.moves import Move, move_of
from hollywood_gin.engine.scoring import hand_bonus
from hollywood_gin.engine.vocabulary import EndedBy, Phase, Rules, Scoring, Status, Target

if TYPE_CHECKING:
    from hollywood_gin.engine.scoring import Game, Sheet


@dataclass(frozen=True)
class GameSeat:
    """One seat's column of one game on the sheet."""

    entries: tuple[int, ...]
    points: int
    bonus: int
    game_bonus: int
    line_bonus: int


@dataclass(frozen=True)
class GameView:
    seats: tuple[GameSeat, GameSeat]
    finished: bool
    winner: int | None


@dataclass(frozen=True)
class SheetView:
    """The score sheet as every view shows it (one value per change of the sheet)."""

    games: tuple[GameView, ...]
    totals: tuple[int, int]
    match_winner: int | None


# A plain dataclass: orjson writes it as `{"by": ..., "seat": ...}`.
@dataclass(frozen=True)
class Ended:
    """How a match that did not play out ended: `by` resign or claim, by `seat`."""

    by: EndedBy
    seat: int

    @property
    def winner(self) -> int:
        """Who won: the other seat when `seat` resigned, `seat` itself when it claimed."""
        return 1 - self.seat if self.by == "resign" else self.seat


class TableView(NamedTuple):
    """The table's options and status (the hub adds its id and players on the wire)."""

    rules: Rules
    scoring: Scoring
    target: Target
    status: Status
    ended: Ended | None = None
    # A table played over days: its days per move (None: a live table).
    move_days: int | None = None
    # The matches each seat won at this table, rematches included (None: none yet).
    matches_won: tuple[int, int] | None = None


class Mine(NamedTuple):
    """What only the seat itself sees of a hand in play."""

    cards: tuple[str, ...]
    opponent_card_count: int
    # The seat's own grouping (least deadwood), so a page can show its melds and
    # live deadwood without a solver of its own.
    melds: tuple[tuple[str, ...], ...]
    deadwood: int
    # The card the seat drew this turn (from the stock or the pile) while it holds
    # eleven: its own card, so a page that reloads marks it again. None: no draw.
    drawn: str | None = None


class Outcome(NamedTuple):
    """A finished hand's result as shown: the engine's result, the deck revealed,
    and the games of the sheet its points went into."""

    result: HandResult
    deck: tuple[str, ...]
    salt: str
    games: tuple[int, ...]
    # What the deck was derived from (docs/protocol-guide.md "Deals nobody can choose"): the
    # server secret (None: a test deck, an old deal) and each seat's entropy.
    server_secret: str | None = None
    entropy: tuple[str | None, str | None] = (None, None)

    def wire(self) -> JsonObject:
        r = self.result
        return {
            "kind": r.kind,
            "knocker": r.knocker,
            "winner": r.winner,
            "points": r.points,
            "seats": [s.to_dict() for s in r.seats],
            "knock_discard": None if r.knock_discard is None else str(r.knock_discard),
            "bonus": hand_bonus(r.kind),
            "deck_reveal": {
                "deck": list(self.deck),
                "salt": self.salt,
                "server_secret": self.server_secret,
                "entropy": list(self.entropy),
            },
            "games": list(self.games),
        }


class HandView(NamedTuple):
    """What everybody at the table sees of the hand (one value per change, shared by
    every seat's view; what only a seat sees is its view's `mine`)."""

    number: int
    dealer: int
    turn: int | None
    phase: Phase
    knock_limit: int
    stock_count: int
    discard_top: str | None
    discard_count: int
    card_counts: tuple[int, int]
    deck_commitment: str
    last_action: Move | None
    events: tuple[Move, ...]
    outcome: Outcome | None = None  # None: the hand is still being played

    def wire(self, mine: Mine | None) -> dict[str, object]:
        """The `hand` object, with the seat's own part where the protocol puts it
        (values orjson writes: tuples, dataclasses): `front`, `Mine.wire`, `back`."""
        out = hand_front(self)
        if mine is not None:
            out.update(mine_wire(mine))
        out.update(hand_back(self))
        return out


class View(NamedTuple):
    """The `state` body (docs/protocol-guide.md "The state") for one seat (`you` None: a spectator).

    `legal` holds the engine's own actions; `knock_deadwood` the deadwood each
    knock of `legal` leaves, in their order, which the wire shows next to the
    knock for display.
    """

    version: int
    you: int | None
    table: TableView
    hand: HandView | None
    mine: Mine | None  # the seat's own cards (None: a spectator, or no hand yet)
    legal: tuple[Action, ...]
    sheet: SheetView
    ready: tuple[bool, bool]
    knock_deadwood: tuple[int, ...] = ()
    # `next_deal.commitment`: hex SHA-256 of the next deal's server secret, between hands.
    next_deal: str | None = None

    def legal_wire(self) -> list[JsonObject]:
        """`legal` as sent: each knock with the deadwood it leaves (fresh dicts)."""
        out = [a.to_dict() for a in self.legal]
        if self.knock_deadwood:
            # The knocks, in `knock_deadwood`'s order (after every plain discard,
            # before the end actions).
            lefts = iter(self.knock_deadwood)
            for i, action in enumerate(self.legal):
                if action.kind == "knock":
                    out[i]["deadwood"] = next(lefts)
        return out

    def wire(self, head: dict[str, object] | None = None, **table_facts: Any) -> dict[str, object]:
        """The body as sent (tuples and dataclasses inside, which orjson writes as
        arrays and objects), after the keys of `head` (the message's `type`);
        `table_facts` join the `table` object (id, players). In order: `version`,
        `you`, `table_wire`, the hand (`HandView.wire`), `legal_wire`, `tail_wire`
        (`STATE_KEYS`)."""
        out: dict[str, object] = {} if head is None else head
        out["version"] = self.version
        out["you"] = self.you
        out["table"] = table_wire(self, **table_facts)
        if self.hand is not None:
            out["hand"] = self.hand.wire(self.mine)
        out["legal"] = self.legal_wire()
        out.update(tail_wire(self))
        return out


def sheet_view(sheet: Sheet) -> SheetView:
    """The view of a match's sheet (each game's columns, the totals, the winner)."""
    totals = sheet.totals()
    return SheetView(
        games=tuple(
            GameView(
                seats=(_game_seat(g, 0), _game_seat(g, 1)),
                finished=g.finished,
                winner=g.winner,
            )
            for g in sheet.games
        ),
        totals=(totals[0], totals[1]),
        match_winner=sheet.match_winner,
    )


def sheet_json(view: SheetView) -> JsonObject:
    """A sheet's view as plain JSON (lists and dicts, built anew): the `sheet` of
    a hand's record, as the state writes it."""
    return {
        "games": [
            {
                "seats": [
                    {
                        "entries": list(s.entries),
                        "points": s.points,
                        "bonus": s.bonus,
                        "game_bonus": s.game_bonus,
                        "line_bonus": s.line_bonus,
                    }
                    for s in g.seats
                ],
                "finished": g.finished,
                "winner": g.winner,
            }
            for g in view.games
        ],
        "totals": list(view.totals),
        "match_winner": view.match_winner,
    }


def _game_seat(game: Game, seat: int) -> GameSeat:
    return GameSeat(
        entries=tuple(game.entries[seat]),
        points=game.points(seat),
        bonus=game.bonus[seat],
        game_bonus=game.game_bonus[seat],
        line_bonus=game.bonus[seat] - game.game_bonus[seat],
    )


# --- the state's wire table -----------------------------------------------------------
# The one description of the `state` body (docs/protocol-guide.md "The state"): each
# object's keys in the protocol's order, the view field each shows, its wire type and
# what the protocol says of it. Everything else reads it: the views' wire parts
# (`hand_front`, `mine_wire`, `hand_back`, `table_wire`, `tail_wire`, written from it
# below), and through them `View.wire` and the frames' bytes
# (`tables.frames`); `view_from_wire`; the wire models (`web.state_bodies`) and so
# docs/protocol.md. A new key of the state is a field of its view type and a line here.


class Required:
    """`Key.default` of a key every body carries."""


class Fresh(NamedTuple):
    """`Key.default` made anew for each body (`make()`: an empty list)."""

    make: Callable[[], object]


class Key(NamedTuple):
    """One key of an object of the `state` body."""

    name: str  # on the wire
    # The view's field it shows; None: another layer adds it (the hub the table's id
    # and players and the message's type, a turn clock its times), at this place.
    field: str | None
    # Its type on the wire, as the wire models name it (`web.state_bodies`).
    type: str
    doc: str | None = None
    # Left out while the field is None (otherwise always sent, null included).
    omitted: bool = False
    # What a reader takes when the key is absent (an older server, a spectator):
    # `Required` (none), a value, or `Fresh`. Keys left out while None: None.
    default: object = Required
    put: Callable[[Any], object] | None = None  # the field's value to the wire's
    get: Callable[[Any], object] | None = None  # the wire's value to the field's


def _pair(values: Sequence[Any]) -> tuple[Any, Any]:
    return (values[0], values[1])


def _tuples(melds: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(m) for m in melds)


def _move(m: Mapping[str, Any]) -> Move:
    return move_of(m["seat"], m["kind"], m.get("card"), m.get("by"))


def _moves(moves: Sequence[Mapping[str, Any]]) -> tuple[Move, ...]:
    return tuple(_move(m) for m in moves)


def _ended(e: Mapping[str, Any]) -> Ended:
    return Ended(e["by"], e["seat"])


def _seat_result(s: Mapping[str, Any]) -> SeatResult:
    value = int(s["deadwood_value"])
    before = int(s["deadwood_before_layoffs"])
    return SeatResult.of(
        [parse_cards(m) for m in s["melds"]],
        parse_cards(s["deadwood"]),
        value,
        [(Card.parse(lo["card"]), int(lo["meld"])) for lo in s["layoffs"]],
        None if before == value else before,
    )


def _outcome(r: Mapping[str, Any]) -> Outcome:
    a, b = (_seat_result(s) for s in r["seats"])
    discard = r["knock_discard"]
    result = HandResult(
        r["kind"],
        r["knocker"],
        r["winner"],
        r["points"],
        (a, b),
        None if discard is None else Card.parse(discard),
    )
    reveal = r["deck_reveal"]
    entropy = reveal.get("entropy") or [None, None]
    return Outcome(
        result,
        tuple(reveal["deck"]),
        reveal["salt"],
        tuple(r["games"]),
        reveal.get("server_secret"),
        (entropy[0], entropy[1]),
    )


def _game_seat_of(column: Mapping[str, Any]) -> GameSeat:
    return GameSeat(**{**column, "entries": tuple(column["entries"])})


def _sheet(s: Mapping[str, Any]) -> SheetView:
    return SheetView(
        games=tuple(
            GameView(
                seats=(_game_seat_of(g["seats"][0]), _game_seat_of(g["seats"][1])),
                finished=g["finished"],
                winner=g["winner"],
            )
            for g in s["games"]
        ),
        totals=(s["totals"][0], s["totals"][1]),
        match_winner=s["match_winner"],
    )


def _commitment(commitment: str) -> dict[str, str]:
    return {"commitment": commitment}


def _commitment_of(next_deal: Mapping[str, str]) -> str:
    return next_deal["commitment"]


# The `table` object (`TableView`).
TABLE_KEYS: tuple[Key, ...] = (
    Key("rules", "rules", "Rules"),
    Key("scoring", "scoring", "Scoring"),
    Key("target", "target", "Target"),
    Key("status", "status", "Status"),
    Key("id", None, "str"),
    Key("players", None, "list[PlayerBody]"),
    Key(
        "ended",
        "ended",
        "EndedBody | None",
        "a match ended by resign or claim (absent when played out)",
        omitted=True,
        get=_ended,
    ),
    Key(
        "move_days",
        "move_days",
        "int | None",
        "a table played over days: days per move (absent: live)",
        omitted=True,
    ),
    Key(
        "matches_won",
        "matches_won",
        "list[int] | None",
        "the matches each seat has won at this table, rematches included, indexed by"
        " seat (absent until a match has ended)",
        omitted=True,
        get=_pair,
    ),
)
# The `hand` object: what everybody sees before the seat's own keys (`HandView`) ...
HAND_FRONT: tuple[Key, ...] = (
    Key("number", "number", "int"),
    Key("dealer", "dealer", "SeatNumber"),
    Key("turn", "turn", "SeatNumber | None"),
    Key("phase", "phase", "Phase"),
    Key("knock_limit", "knock_limit", "int"),
    Key("stock_count", "stock_count", "int"),
    Key("discard_top", "discard_top", "CardText | None"),
    Key("discard_count", "discard_count", "int"),
)
# ... the seat's own (`Mine`; absent for spectators) ...
MINE_KEYS: tuple[Key, ...] = (
    Key(
        "my_cards",
        "cards",
        "list[CardText] | None",
        "absent for spectators",
        default=None,
        get=tuple,
    ),
    Key(
        "opponent_card_count",
        "opponent_card_count",
        "int | None",
        "absent for spectators",
        default=None,
    ),
    Key(
        "my_deadwood",
        "deadwood",
        "int | None",
        "my deadwood (holding 11: after the best allowed discard)",
        default=None,
    ),
    Key(
        "my_melds",
        "melds",
        "list[list[CardText]] | None",
        "my melds for display (holding 11: of the ten kept)",
        default=None,
        get=_tuples,
    ),
    Key(
        "my_drawn",
        "drawn",
        "CardText | None",
        "the card I drew this turn (stock or pile), until my discard; absent"
        " otherwise, and never in another seat's state",
        omitted=True,
    ),
)
# ... and everybody's again after them (`HandView`; a turn clock adds its deadline).
HAND_BACK: tuple[Key, ...] = (
    Key(
        "card_counts",
        "card_counts",
        "list[int]",
        "cards held by seat 0 and seat 1",
        get=_pair,
    ),
    Key(
        "deck_commitment",
        "deck_commitment",
        "str",
        'hex SHA-256 of salt + ":" + ",".join(deck)',
    ),
    Key("last_action", "last_action", "MoveBody | None", default=None, get=_move),
    Key(
        "events",
        "events",
        "list[MoveBody]",
        "this hand's public moves so far, oldest first",
        default=Fresh(list),
        get=_moves,
    ),
    Key(
        "result",
        "outcome",
        "HandResultBody | None",
        "when phase is over",
        omitted=True,
        put=Outcome.wire,
        get=_outcome,
    ),
    Key(
        "turn_deadline",
        None,
        "int | None",
        "with a turn clock: Unix ms by which the seat to act must act (null: none)",
        default=None,
    ),
)
# The body's keys after `legal` (`View`; a turn clock adds the server's time).
TAIL_KEYS: tuple[Key, ...] = (
    Key("sheet", "sheet", "SheetBody", get=_sheet),
    Key("ready", "ready", "list[bool]", "who has sent next_hand / new_match", get=_pair),
    Key(
        "next_deal",
        "next_deal",
        "NextDealBody | None",
        "between hands (and while waiting): the commitment to the next deal",
        omitted=True,
        put=_commitment,
        get=_commitment_of,
    ),
    Key(
        "server_time",
        None,
        "int | None",
        "with a turn clock: the server's time, Unix ms",
        default=None,
    ),
)
# The body (`View`): the message's type, then `version`, `you`, the `table` object,
# the `hand` object, `legal` (each knock with the deadwood it leaves: `knock_deadwood`),
# then `TAIL_KEYS`. These five are the frame's skeleton (`View.wire`,
# `tables.frames.StateFrames`); a new key goes into one of the objects above.
STATE_KEYS: tuple[Key, ...] = (
    Key("type", None, 'Literal["state"]', default="state"),
    Key("version", "version", "int"),
    Key("you", "you", "SeatNumber | None"),
    Key("table", "table", "TableBody"),
    Key("hand", "hand", "HandBody | None", "absent before the first deal", omitted=True),
    Key("legal", "legal", "list[ActionBody]"),
    *TAIL_KEYS,
)
# The view's fields each seat has its own of; the others are the same for every seat
# of one change (`tables.frames` encodes them once).
PER_SEAT: frozenset[str] = frozenset({"you", "mine", "legal", "knock_deadwood"})


def _writer(name: str, keys: Sequence[Key], of: str = "self") -> Callable[..., dict[str, object]]:
    """The function writing an object's keys of a view in `keys`' order: a dict of
    the values as they are (orjson writes tuples and dataclasses), `put` applied,
    keys left out while None. Keys another layer adds take `**facts` at their place;
    those at the end are the caller's to append. Written as code, as `dataclasses`
    writes `__init__`: the frames call these on every change, and a loop over `keys`
    would cost several times the instructions of this dict display. `of`: where the
    fields are (`self.table` for the view's `table` object)."""
    ns: dict[str, object] = {}
    head: list[str] = []  # the dict display, up to the first key left out while None
    rest: list[str] = []  # statements after it
    last = max((i for i, k in enumerate(keys) if k.field is not None), default=-1)
    facts = False
    for i, key in enumerate(keys):
        if key.field is None:
            if i < last and not facts:
                facts = True
                (rest.append("    out.update(facts)") if rest else head.append("**facts"))
            continue
        value = f"{of}.{key.field}"
        if key.put is not None:
            ns[f"_put{i}"] = key.put
            shown = f"_put{i}({value})"
        else:
            shown = value
        if key.omitted:
            rest.append(f"    if {value} is not None:\n        out[{key.name!r}] = {shown}")
        elif rest:
            rest.append(f"    out[{key.name!r}] = {shown}")
        else:
            head.append(f"{key.name!r}: {shown}")
    args = "self, **facts" if facts else "self"
    lines = [f"def {name}({args}):", f"    out = {{{', '.join(head)}}}", *rest, "    return out"]
    exec("\n".join(lines), ns)  # our own text, from the tables above
    function = ns[name]
    assert callable(function)
    return function


def _fields_of(keys: Sequence[Key], wire: Mapping[str, Any]) -> dict[str, Any]:
    """The view's fields of an object's `keys` read from its wire form."""
    out: dict[str, Any] = {}
    for key in keys:
        if key.field is None:
            continue
        value = wire.get(key.name) if key.omitted else wire[key.name]
        out[key.field] = value if value is None or key.get is None else key.get(value)
    return out


# The views' wire parts, each an object's keys in order (`View.wire` joins them, and
# `tables.frames` encodes them apart).
hand_front: Callable[[HandView], dict[str, object]] = _writer("hand_front", HAND_FRONT)
hand_back: Callable[[HandView], dict[str, object]] = _writer("hand_back", HAND_BACK)
mine_wire: Callable[[Mine], dict[str, object]] = _writer("mine_wire", MINE_KEYS)
# `table_wire(view, id=..., players=...)`: the hub's facts at their place.
table_wire: Callable[..., dict[str, object]] = _writer("table_wire", TABLE_KEYS, "self.table")
tail_wire: Callable[[View], dict[str, object]] = _writer("tail_wire", TAIL_KEYS)


def view_from_wire(body: Mapping[str, Any]) -> View:
    """A `state` body as received (a client, a bot on a socket) read back into a `View`:
    `view_from_wire(wire)` of any view's wire form gives that wire form again.

    :raises ValueError: not a `state` body (docs/protocol-guide.md "The state").
    """
    try:
        h = body.get("hand")
        hand: HandView | None = None
        mine: Mine | None = None
        if h is not None:
            if "my_cards" in h:
                mine = Mine(**_fields_of(MINE_KEYS, h))
            hand = HandView(**_fields_of(HAND_FRONT, h), **_fields_of(HAND_BACK, h))
        legal = body["legal"]
        return View(
            version=body["version"],
            you=body["you"],
            table=TableView(**_fields_of(TABLE_KEYS, body["table"])),
            hand=hand,
            mine=mine,
            legal=tuple(parse_action(a) for a in legal),
            knock_deadwood=tuple(a["deadwood"] for a in legal if a.get("kind") == "knock"),
            **_fields_of(TAIL_KEYS, body),
        )
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise ValueError(f"not a state body: {exc!r}") from None


# The views of every seat are built on every change: `new_mine((...))` and
# `new_view((...))` make the named tuple from all its fields in order as its own
# generated `__new__` does (`tuple.__new__`), without that Python frame (a tenth of
# the views' instructions, docs/performance.md). For mypy they take the fields'
# types in order, so a field out of place or missing is a type error;
# tests/engine/test_view.py checks that these are the classes' own fields.
MineFields = tuple[tuple[str, ...], int, tuple[tuple[str, ...], ...], int, str | None]
ViewFields = tuple[
    int,
    int | None,
    TableView,
    HandView | None,
    Mine | None,
    tuple[Action, ...],
    SheetView,
    tuple[bool, bool],
    tuple[int, ...],
    str | None,
]
if TYPE_CHECKING:

    def new_mine(fields: MineFields, /) -> Mine: ...
    def new_view(fields: ViewFields, /) -> View: ...

else:
    new_mine = partial(tuple.__new__, Mine)
    new_view = partial(tuple.__new__, View)
