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

from collections.abc import Mapping
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

    def wire(self) -> dict[str, object]:
        """The seat's own keys of the `hand` object, in the protocol's order
        (`my_drawn` only while there is a drawn card)."""
        out: dict[str, object] = {
            "my_cards": self.cards,
            "opponent_card_count": self.opponent_card_count,
            "my_deadwood": self.deadwood,
            "my_melds": self.melds,
        }
        if self.drawn is not None:
            out["my_drawn"] = self.drawn
        return out


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

    def front(self) -> dict[str, object]:
        """The `hand` object's keys before the seat's own (`Mine.wire`), in order."""
        return {
            "number": self.number,
            "dealer": self.dealer,
            "turn": self.turn,
            "phase": self.phase,
            "knock_limit": self.knock_limit,
            "stock_count": self.stock_count,
            "discard_top": self.discard_top,
            "discard_count": self.discard_count,
        }

    def back(self) -> dict[str, object]:
        """The `hand` object's keys after the seat's own, in order (the result once
        the hand is over)."""
        out: dict[str, object] = {
            "card_counts": self.card_counts,
            "deck_commitment": self.deck_commitment,
            "last_action": self.last_action,
            "events": self.events,
        }
        if self.outcome is not None:
            out["result"] = self.outcome.wire()
        return out

    def wire(self, mine: Mine | None) -> dict[str, object]:
        """The `hand` object, with the seat's own part where the protocol puts it
        (values orjson writes: tuples, dataclasses): `front`, `Mine.wire`, `back`."""
        out = self.front()
        if mine is not None:
            out.update(mine.wire())
        out.update(self.back())
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

    def table_wire(self, **table_facts: Any) -> dict[str, object]:
        """The `table` object: the options and status, `table_facts` (id, players),
        how the match ended."""
        t = self.table
        table: dict[str, object] = {
            "rules": t.rules,
            "scoring": t.scoring,
            "target": t.target,
            "status": t.status,
            **table_facts,
        }
        if t.ended is not None:
            table["ended"] = t.ended
        if t.move_days is not None:
            table["move_days"] = t.move_days
        return table

    def tail(self) -> dict[str, object]:
        """The body's keys after `legal`, in order."""
        out: dict[str, object] = {"sheet": self.sheet, "ready": self.ready}
        if self.next_deal is not None:
            out["next_deal"] = {"commitment": self.next_deal}
        return out

    def wire(self, head: dict[str, object] | None = None, **table_facts: Any) -> dict[str, object]:
        """The body as sent (tuples and dataclasses inside, which orjson writes as
        arrays and objects), after the keys of `head` (the message's `type`);
        `table_facts` join the `table` object (id, players). In order: `version`,
        `you`, `table_wire`, the hand (`HandView.wire`), `legal_wire`, `tail`."""
        out: dict[str, object] = {} if head is None else head
        out["version"] = self.version
        out["you"] = self.you
        out["table"] = self.table_wire(**table_facts)
        if self.hand is not None:
            out["hand"] = self.hand.wire(self.mine)
        out["legal"] = self.legal_wire()
        out.update(self.tail())
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


def view_from_wire(body: Mapping[str, Any]) -> View:
    """A `state` body as received (a client, a bot on a socket) read back into a `View`:
    `view_from_wire(wire)` of any view's wire form gives that wire form again.

    :raises ValueError: not a `state` body (docs/protocol-guide.md "The state").
    """

    def seat_result(s: Mapping[str, Any]) -> SeatResult:
        value = int(s["deadwood_value"])
        before = int(s["deadwood_before_layoffs"])
        return SeatResult.of(
            [parse_cards(m) for m in s["melds"]],
            parse_cards(s["deadwood"]),
            value,
            [(Card.parse(lo["card"]), int(lo["meld"])) for lo in s["layoffs"]],
            None if before == value else before,
        )

    def move(m: Mapping[str, Any]) -> Move:
        return move_of(m["seat"], m["kind"], m.get("card"), m.get("by"))

    try:
        t = body["table"]
        h = body.get("hand")
        hand: HandView | None = None
        mine: Mine | None = None
        if h is not None:
            if "my_cards" in h:
                mine = Mine(
                    tuple(h["my_cards"]),
                    h["opponent_card_count"],
                    tuple(tuple(m) for m in h["my_melds"]),
                    h["my_deadwood"],
                    h.get("my_drawn"),
                )
            outcome = None
            r = h.get("result")
            if r is not None:
                a, b = (seat_result(s) for s in r["seats"])
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
                outcome = Outcome(
                    result,
                    tuple(reveal["deck"]),
                    reveal["salt"],
                    tuple(r["games"]),
                    reveal.get("server_secret"),
                    (entropy[0], entropy[1]),
                )
            last = h["last_action"]
            hand = HandView(
                number=h["number"],
                dealer=h["dealer"],
                turn=h["turn"],
                phase=h["phase"],
                knock_limit=h["knock_limit"],
                stock_count=h["stock_count"],
                discard_top=h["discard_top"],
                discard_count=h["discard_count"],
                card_counts=(h["card_counts"][0], h["card_counts"][1]),
                deck_commitment=h["deck_commitment"],
                last_action=None if last is None else move(last),
                events=tuple(move(e) for e in h["events"]),
                outcome=outcome,
            )
        s = body["sheet"]
        sheet = SheetView(
            games=tuple(
                GameView(
                    seats=(GameSeat(**_seat(g["seats"][0])), GameSeat(**_seat(g["seats"][1]))),
                    finished=g["finished"],
                    winner=g["winner"],
                )
                for g in s["games"]
            ),
            totals=(s["totals"][0], s["totals"][1]),
            match_winner=s["match_winner"],
        )
        legal = body["legal"]
        e = t.get("ended")
        ended = None if e is None else Ended(e["by"], e["seat"])
        return View(
            version=body["version"],
            you=body["you"],
            table=TableView(
                t["rules"], t["scoring"], t["target"], t["status"], ended, t.get("move_days")
            ),
            hand=hand,
            mine=mine,
            legal=tuple(parse_action(a) for a in legal),
            sheet=sheet,
            ready=(body["ready"][0], body["ready"][1]),
            knock_deadwood=tuple(a["deadwood"] for a in legal if a.get("kind") == "knock"),
            next_deal=(body.get("next_deal") or {}).get("commitment"),
        )
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise ValueError(f"not a state body: {exc!r}") from None


def _seat(column: Mapping[str, Any]) -> dict[str, Any]:
    return {**column, "entries": tuple(column["entries"])}


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
