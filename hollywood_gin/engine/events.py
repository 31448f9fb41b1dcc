"""The match log as frozen values: one class per kind of entry `Match.log` holds.

A match writes its history as these events and `Match.replay` reads them back, so
the same state follows without the dealer. Each event's `to_json()` is its stored
form, key for key and byte for byte what the engine wrote before events were
typed (the stores write it with orjson, so nothing stored migrates);
`event_from_json` reads a stored entry back and refuses, with `BadAction`, any
entry that is not exactly what some event writes (an unknown kind, a missing,
extra or mistyped field), so a value read back writes the same bytes again.

The kinds, as stored in `"event"`:

- `start` (`Start`): both seats taken, the match begins.
- `next_deal` (`NextDeal`): the server's commitment to the next deal's secret,
  written before any seat can add entropy (docs/protocol-guide.md "Deals nobody can choose").
- `entropy` (`Entropy`): a seat's part of the next deal.
- `snapshot` (`Snapshot`): what the hands before the next deal left behind (the
  sheet, the version, presence); a compacted log starts with one.
- `deal` (`Deal`): a hand's deck, salt and dealer, and what the deck came from.
- `action` (`ActionTaken`): an action of a seat, `by` the turn clock or a stand-in
  when the seat did not move itself (`resign`, `claim` and `stand_in` are actions).
- `reshuffle` (`Reshuffle`): `hand` scoring turned the discard pile into a stock.
- `back` (`Back`): a seat the computer stood in for came back.
- `arrange` (`Arranged`): a card order, in logs written before orders were kept
  apart from the log (`Match.orders`); read, replayed and kept, never written anew.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hollywood_gin.engine.actions import Action, parse_action
from hollywood_gin.engine.cards import Card, parse_cards
from hollywood_gin.engine.errors import BadAction, RuleError
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.scoring import SheetState
from hollywood_gin.engine.vocabulary import MOVERS, Mover

_HEX = frozenset("0123456789abcdef")
_MOVERS: Mapping[object, Mover] = {m: m for m in MOVERS}


def _fields(
    obj: Mapping[str, object], kind: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> None:
    keys = set(obj) - {"event"}
    missing = set(required) - keys
    if missing:
        raise BadAction(f"a {kind} event lacks `{sorted(missing)[0]}`")
    extra = keys - set(required) - set(optional)
    if extra:
        raise BadAction(f"a {kind} event has no field {sorted(extra)[0][:20]!r}")


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadAction(f"a log event's {what} is not a count")
    return value


def _seat(value: object) -> int:
    if isinstance(value, bool) or value not in (0, 1):
        raise BadAction("a log event's seat is 0 or 1")
    return 0 if value == 0 else 1


def _hex(value: object, what: str, length: int | None = None) -> str:
    if (
        not isinstance(value, str)
        or not set(value) <= _HEX
        or len(value) % 2
        or (length is not None and len(value) != length)
    ):
        raise BadAction(f"a log event's {what} is not lower-case hex")
    return value


def _cards(value: object, what: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise BadAction(f"a log event's {what} is a list of cards")
    return tuple(parse_cards(value))


@dataclass(frozen=True, slots=True)
class Start:
    """Both seats are taken: the match begins (its first deal follows)."""

    def to_json(self) -> JsonObject:
        return {"event": "start"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Start:
        _fields(obj, "start", ())
        return cls()


@dataclass(frozen=True, slots=True)
class NextDeal:
    """The server's secret for deal `hand` (hex), committed to before any entropy."""

    hand: int
    secret: str

    def to_json(self) -> JsonObject:
        return {"event": "next_deal", "hand": self.hand, "secret": self.secret}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> NextDeal:
        _fields(obj, "next_deal", ("hand", "secret"))
        return cls(_count(obj["hand"], "hand"), _hex(obj["secret"], "secret"))


@dataclass(frozen=True, slots=True)
class Entropy:
    """`seat`'s entropy for deal `hand`: 32 lower-case hex characters."""

    hand: int
    seat: int
    entropy: str

    def to_json(self) -> JsonObject:
        return {"event": "entropy", "hand": self.hand, "seat": self.seat, "entropy": self.entropy}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Entropy:
        _fields(obj, "entropy", ("hand", "seat", "entropy"))
        return cls(
            _count(obj["hand"], "hand"), _seat(obj["seat"]), _hex(obj["entropy"], "entropy", 32)
        )


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the next deal starts from: everything the hands before it left behind.

    `timeouts` and `stand_in` are written only when some seat has any (None: not
    written), so the logs of tables that never had any stay as they were.
    """

    hands_dealt: int
    version: int
    sheet: SheetState
    timeouts: tuple[int, int] | None = None
    stand_in: tuple[bool, bool] | None = None
    # The matches each seat won at this table before this deal (its rematches: the
    # record between the two seats); None: none finished yet (not written).
    matches_won: tuple[int, int] | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "event": "snapshot",
            "hands_dealt": self.hands_dealt,
            "version": self.version,
            "sheet": self.sheet.to_json(),
        }
        if self.timeouts is not None:
            out["timeouts"] = list(self.timeouts)
        if self.stand_in is not None:
            out["stand_in"] = list(self.stand_in)
        if self.matches_won is not None:
            out["matches_won"] = list(self.matches_won)
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Snapshot:
        _fields(
            obj,
            "snapshot",
            ("hands_dealt", "version", "sheet"),
            ("timeouts", "stand_in", "matches_won"),
        )
        timeouts = obj.get("timeouts")
        stand_in = obj.get("stand_in")
        won = obj.get("matches_won")
        if won is not None and not (isinstance(won, list) and len(won) == 2):
            raise BadAction("a snapshot's matches_won are two seats' counts")
        if timeouts is not None and not (isinstance(timeouts, list) and len(timeouts) == 2):
            raise BadAction("a snapshot's timeouts are two seats' counts")
        if stand_in is not None and not (
            isinstance(stand_in, list)
            and len(stand_in) == 2
            and all(isinstance(b, bool) for b in stand_in)
        ):
            raise BadAction("a snapshot's stand_in is two seats' flags")
        return cls(
            _count(obj["hands_dealt"], "hands_dealt"),
            _count(obj["version"], "version"),
            SheetState.from_json(obj["sheet"]),
            None
            if timeouts is None
            else (_count(timeouts[0], "count"), _count(timeouts[1], "count")),
            None if stand_in is None else (stand_in[0] is True, stand_in[1] is True),
            None if won is None else (_count(won[0], "count"), _count(won[1], "count")),
        )


@dataclass(frozen=True, slots=True)
class DealSource:
    """What a deck was derived from: the server secret (None: not derived, a test
    deck) and each seat's entropy (None: the seat sent none)."""

    server_secret: str | None
    entropy: tuple[str | None, str | None]


@dataclass(frozen=True, slots=True)
class Deal:
    """Hand `hand` dealt by `dealer` from `deck` (top first) with `salt`; `source`
    None: neither a secret nor entropy went into it (written without those keys)."""

    hand: int
    dealer: int
    deck: tuple[Card, ...]
    salt: str
    source: DealSource | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "event": "deal",
            "hand": self.hand,
            "dealer": self.dealer,
            "deck": [c.text for c in self.deck],
            "salt": self.salt,
        }
        if self.source is not None:
            out["server_secret"] = self.source.server_secret
            out["entropy"] = list(self.source.entropy)
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Deal:
        _fields(obj, "deal", ("hand", "dealer", "deck", "salt"), ("server_secret", "entropy"))
        salt = obj["salt"]
        if not isinstance(salt, str):
            raise BadAction("a deal's salt is a string")
        source = None
        if "server_secret" in obj or "entropy" in obj:
            _fields(obj, "deal", ("hand", "dealer", "deck", "salt", "server_secret", "entropy"))
            secret, entropy = obj["server_secret"], obj["entropy"]
            if not isinstance(entropy, list) or len(entropy) != 2:
                raise BadAction("a deal's entropy is two seats' parts")
            source = DealSource(
                None if secret is None else _hex(secret, "server secret"),
                (
                    None if entropy[0] is None else _hex(entropy[0], "entropy", 32),
                    None if entropy[1] is None else _hex(entropy[1], "entropy", 32),
                ),
            )
        return cls(
            _count(obj["hand"], "hand"),
            _seat(obj["dealer"]),
            _cards(obj["deck"], "deck"),
            salt,
            source,
        )


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """`seat`'s action; `by` who made it when the seat did not (None: the seat)."""

    seat: int
    action: Action
    by: Mover | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {"event": "action", "seat": self.seat, "action": self.action.to_dict()}
        if self.by is not None:
            out["by"] = self.by
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> ActionTaken:
        _fields(obj, "action", ("seat", "action"), ("by",))
        by = obj.get("by")
        mover = _MOVERS.get(by) if isinstance(by, str) else None
        if by is not None and mover is None:
            raise BadAction(f"unknown mover {str(by)[:20]!r}")
        return cls(_seat(obj["seat"]), parse_action(obj["action"]), mover)


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """`hand` scoring: after `after` moves of hand `hand`, the discard pile under its
    top became the stock `stock` (top card first)."""

    hand: int
    after: int
    stock: tuple[Card, ...]

    def to_json(self) -> JsonObject:
        return {
            "event": "reshuffle",
            "hand": self.hand,
            "after": self.after,
            "stock": [c.text for c in self.stock],
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Reshuffle:
        _fields(obj, "reshuffle", ("hand", "after", "stock"))
        return cls(
            _count(obj["hand"], "hand"),
            _count(obj["after"], "after"),
            _cards(obj["stock"], "stock"),
        )


@dataclass(frozen=True, slots=True)
class Back:
    """`seat`, which the computer stood in for, is back (not an action)."""

    seat: int

    def to_json(self) -> JsonObject:
        return {"event": "back", "seat": self.seat}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Back:
        _fields(obj, "back", ("seat",))
        return cls(_seat(obj["seat"]))


@dataclass(frozen=True, slots=True)
class Arranged:
    """`seat`'s card order, as logs written before `Match.orders` kept it (the cards
    as the seat sent them)."""

    seat: int
    cards: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {"event": "arrange", "seat": self.seat, "cards": list(self.cards)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Arranged:
        _fields(obj, "arrange", ("seat", "cards"))
        cards = obj["cards"]
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise BadAction("an arrange event's cards are a list of cards")
        return cls(_seat(obj["seat"]), tuple(cards))


Event = Start | NextDeal | Entropy | Snapshot | Deal | ActionTaken | Reshuffle | Back | Arranged

_READERS: Mapping[str, Callable[[Mapping[str, object]], Event]] = {
    "start": Start.from_json,
    "next_deal": NextDeal.from_json,
    "entropy": Entropy.from_json,
    "snapshot": Snapshot.from_json,
    "deal": Deal.from_json,
    "action": ActionTaken.from_json,
    "reshuffle": Reshuffle.from_json,
    "back": Back.from_json,
    "arrange": Arranged.from_json,
}


def event_from_json(obj: object) -> Event:
    """The event a stored log entry (parsed JSON) is.

    :raises BadAction: not an entry some event writes, exactly (so the event read
        writes the same entry again).
    """
    if not isinstance(obj, Mapping):
        raise BadAction("a log event is an object")
    kind = obj.get("event")
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise BadAction(f"unknown log event {str(kind)[:20]!r}")
    try:
        event = reader(obj)
    except BadAction:
        raise
    except RuleError as exc:  # a card that is not one (`BadCard`)
        raise BadAction(f"a {kind} event: {exc}") from None
    if event.to_json() != obj:
        raise BadAction(f"a {kind} event not as the engine writes it")
    return event


def log_from_json(entries: object) -> list[Event]:
    """A stored log (a list of parsed entries) as events.

    :raises BadAction: not a list, or an entry `event_from_json` refuses.
    """
    if not isinstance(entries, list | tuple):
        raise BadAction("a log is a list of events")
    return [event_from_json(e) for e in entries]


START = Start()
