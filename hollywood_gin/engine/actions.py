"""A player's action as one typed, frozen value: what `legal` lists and `Match.apply` takes.

An `Action` is built once where it enters: the web layer from its wire model, a
replay or a bot from the wire form (`parse_action`). Its wire form (`wire()`)
is what the log keeps and what `legal` shows; the `deadwood` that `legal` shows
next to a knock is display only and is added by the view, on the way out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from hollywood_gin.engine.cards import CARDS, Card, format_cards, parse_cards
from hollywood_gin.engine.errors import BadAction, BadCard

PlayKind = Literal["take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock"]
MatchKind = Literal["next_hand", "new_match"]
# Ending a match early (PROTOCOL.md "Around the match"): open to a person, never
# chosen by the computer (`PLAYER_KINDS` are what a computer or stand-in may send).
EndKind = Literal["resign", "claim", "stand_in"]
ActionKind = PlayKind | MatchKind | EndKind
PLAY_KINDS: tuple[PlayKind, ...] = get_args(PlayKind)
MATCH_KINDS: tuple[MatchKind, ...] = get_args(MatchKind)
END_KINDS: tuple[EndKind, ...] = get_args(EndKind)
ACTION_KINDS: tuple[str, ...] = (*PLAY_KINDS, *MATCH_KINDS, *END_KINDS)

_FIELDS: dict[str, frozenset[str]] = {
    **{k: frozenset() for k in ACTION_KINDS},
    "discard": frozenset({"card"}),
    # `deadwood` is what `legal` shows for display; sent back, it is ignored.
    "knock": frozenset({"discard", "melds", "deadwood"}),
}
_REQUIRED: dict[str, frozenset[str]] = {
    "discard": frozenset({"card"}),
    "knock": frozenset({"discard"}),
}


@dataclass(frozen=True, slots=True)
class Action:
    """One action. `card` is the discard of `discard` and of `knock`; `melds` the
    knocker's own arrangement (None: the least-deadwood one)."""

    kind: ActionKind
    card: Card | None = None
    melds: tuple[tuple[Card, ...], ...] | None = None

    @staticmethod
    def of(kind: ActionKind, card: Card | None = None) -> Action:
        """The shared value of an action without melds (there are 110 of them)."""
        return _SHARED[kind, None if card is None else card.index]

    def wire(self) -> dict[str, Any]:
        """The wire form, as the log keeps it: one shared, read-only dict per action
        without melds, so a log entry or a `legal` list holds no copy."""
        if self.melds is None:
            return _WIRE[self.kind, None if self.card is None else self.card.index]
        return self.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """The wire form, a fresh dict."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "discard":
            out["card"] = str(self.card)
        elif self.kind == "knock":
            out["discard"] = str(self.card)
            if self.melds is not None:
                out["melds"] = [format_cards(m) for m in self.melds]
        return out

    def check(self) -> None:
        """The shape a type cannot say: a discard names its card, a meld no card twice.

        :raises BadAction: a `discard` or `knock` without its card.
        :raises BadCard: a card twice in one meld.
        """
        if self.kind in ("discard", "knock") and self.card is None:
            raise BadAction(f"{self.kind} needs its card")
        for meld in self.melds or ():
            if len(set(meld)) != len(meld):
                raise BadCard("the same card appears twice")


_SHARED: dict[tuple[str, int | None], Action] = {
    (kind, None): Action(kind) for kind in (*PLAY_KINDS[:4], *MATCH_KINDS, *END_KINDS)
} | {(kind, c.index): Action(kind, c) for kind in ("discard", "knock") for c in CARDS}
_WIRE: dict[tuple[str, int | None], dict[str, Any]] = {
    key: action.to_dict() for key, action in _SHARED.items()
}


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
    missing = _REQUIRED.get(kind, frozenset()) - keys
    if missing:
        raise BadAction(f"{kind} needs `{sorted(missing)[0]}`")
    if kind == "discard":
        return Action.of("discard", Card.parse(action["card"]))
    if kind == "knock":
        melds = action.get("melds")
        if melds is None:
            return Action.of("knock", Card.parse(action["discard"]))
        if not isinstance(melds, list | tuple) or not all(
            isinstance(m, list | tuple) for m in melds
        ):
            raise BadAction("`melds` is a list of card lists")
        parsed = tuple(tuple(parse_cards(m)) for m in melds)
        return Action("knock", Card.parse(action["discard"]), parsed)
    return _SHARED[kind, None]


def knock(discard: Card, melds: Sequence[Sequence[Card]] | None = None) -> Action:
    """A knock discarding `discard`, naming `melds` or (None) leaving them to the engine."""
    if melds is None:
        return Action.of("knock", discard)
    return Action("knock", discard, tuple(tuple(m) for m in melds))
