"""A player's action as one typed, frozen value: what `legal` lists and `Match.apply` takes.

An `Action` is built once where it enters: the web layer from its wire model, a
replay or a bot from the wire form (`parse_action`). It cannot be built invalid:
a `discard` or `knock` without its card, a card on any other kind, melds on
anything but a knock or a card twice in one meld raise at construction. Its wire
form (`to_dict()`, a fresh dict each time) is what the log keeps and what `legal`
shows; the `deadwood` that `legal` shows next to a knock is display only and is
added by the view, on the way out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hollywood_gin.engine.cards import CARDS, Card, parse_cards
from hollywood_gin.engine.errors import BadAction, BadCard
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.vocabulary import (
    ACTION_KINDS,
    ACTION_WIRE,
    END_KINDS,
    MATCH_KINDS,
    PLAY_KINDS,
    ActionKind,
    EndKind,
    MatchKind,
    PlayKind,
)

__all__ = [
    "ACTION_KINDS",
    "END_KINDS",
    "MATCH_KINDS",
    "PLAY_KINDS",
    "Action",
    "ActionKind",
    "EndKind",
    "MatchKind",
    "PlayKind",
    "knock",
    "parse_action",
]

_KINDS = frozenset(ACTION_KINDS)
# The kinds that name a card, and the field that names it (`ACTION_WIRE`).
_CARD_FIELD: Mapping[str, str] = {k: w.card for k, w in ACTION_WIRE.items() if w.card is not None}
_WITH_CARD = frozenset(_CARD_FIELD)
# The wire fields of each kind besides `kind`: `deadwood` is what `legal` shows next
# to a knock for display; sent back, it is ignored.
_FIELDS: Mapping[str, frozenset[str]] = {
    kind: frozenset(
        ([] if w.card is None else [w.card]) + (["melds", "deadwood"] if kind == "knock" else [])
    )
    for kind, w in ACTION_WIRE.items()
}
_REQUIRED: Mapping[str, str] = _CARD_FIELD


@dataclass(frozen=True, slots=True)
class Action:
    """One action. `card` is the discard of `discard` and of `knock`; `melds` the
    knocker's own arrangement (None: the least-deadwood one).

    :raises BadAction: (at construction) an unknown kind, a missing or extra card,
        melds on anything but a knock.
    :raises BadCard: (at construction) a card twice in one meld, or not a `Card`.
    """

    kind: ActionKind
    card: Card | None = None
    melds: tuple[tuple[Card, ...], ...] | None = None

    def __post_init__(self) -> None:
        kind = self.kind
        if kind not in _KINDS:
            raise BadAction(f"unknown action kind: {str(kind)[:20]!r}")
        if kind in _WITH_CARD:
            if self.card is None:
                raise BadAction(f"{kind} needs its card")
            if self.card.__class__ is not Card:
                raise BadCard(f"a card, not {type(self.card).__name__}")
        elif self.card is not None:
            raise BadAction(f"{kind} takes no card")
        if self.melds is not None:
            if kind != "knock":
                raise BadAction(f"{kind} takes no melds")
            for meld in self.melds:
                if not isinstance(meld, tuple) or any(c.__class__ is not Card for c in meld):
                    raise BadCard("a meld is a tuple of cards")
                if len(set(meld)) != len(meld):
                    raise BadCard("the same card appears twice")

    @staticmethod
    def of(kind: ActionKind, card: Card | None = None) -> Action:
        """The shared value of an action without melds (there are 110 of them).

        :raises BadAction: no such action (an unknown kind, a card missing or extra).
        """
        found = _SHARED.get((kind, None if card is None else card.index))
        if found is None:
            return Action(kind, card)  # raises: every valid one is shared
        return found

    def to_dict(self) -> JsonObject:
        """The wire form, as the log keeps it and `legal` shows it: a fresh dict."""
        kind = self.kind
        card = self.card
        if card is None:
            return {"kind": kind}
        if self.melds is None:
            return {"kind": kind, _CARD_FIELD[kind]: card.text}
        return {
            "kind": kind,
            "discard": card.text,
            "melds": [[c.text for c in m] for m in self.melds],
        }

    # The same: the name the views and the log use.
    wire = to_dict


_SHARED: Mapping[tuple[str, int | None], Action] = {
    (kind, None): Action(kind) for kind in ACTION_KINDS if kind not in _WITH_CARD
} | {(kind, c.index): Action(kind, c) for kind in ACTION_KINDS if kind in _WITH_CARD for c in CARDS}


def parse_action(action: object) -> Action:
    """An action from its wire form (a log entry, a bot's choice of `legal`).

    :raises BadAction: not a mapping, unknown kind, missing or extra fields.
    :raises BadCard: a card field that is not card notation, a card twice in a meld.
    """
    if not isinstance(action, Mapping):
        raise BadAction("an action is an object with a `kind`")
    kind = action.get("kind")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise BadAction(f"unknown action kind: {str(kind)[:20]!r}")
    keys = set(action) - {"kind"}
    extra = keys - _FIELDS[kind]
    if extra:
        raise BadAction(f"{kind} takes no field {sorted(map(str, extra))[0][:20]!r}")
    needed = _REQUIRED.get(kind)
    if needed is not None and needed not in keys:
        raise BadAction(f"{kind} needs `{needed}`")
    if needed is not None:
        melds = action.get("melds")
        if melds is None:
            return Action.of(kind, Card.parse(action[needed]))  # type: ignore[arg-type]
        if not isinstance(melds, list | tuple) or not all(
            isinstance(m, list | tuple) for m in melds
        ):
            raise BadAction("`melds` is a list of card lists")
        parsed = tuple(tuple(parse_cards(m)) for m in melds)
        return Action("knock", Card.parse(action[needed]), parsed)
    return _SHARED[kind, None]


def knock(discard: Card, melds: Sequence[Sequence[Card]] | None = None) -> Action:
    """A knock discarding `discard`, naming `melds` or (None) leaving them to the engine."""
    if melds is None:
        return Action.of("knock", discard)
    return Action("knock", discard, tuple(tuple(m) for m in melds))
