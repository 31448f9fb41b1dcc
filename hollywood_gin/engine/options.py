"""A match's table choices (`Options`) and a seat's kept card order (`Order`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.vocabulary import (
    MOVE_DAYS,
    RULES,
    SCORINGS,
    TARGETS,
    TURN_SECONDS,
    Rules,
    Scoring,
    Target,
)

_RULES: Mapping[object, Rules] = {r: r for r in RULES}
_SCORINGS: Mapping[object, Scoring] = {s: s for s in SCORINGS}
_TARGETS: Mapping[object, Target] = {t: t for t in TARGETS}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class Options:
    """The table choices of docs/rules.md "Table choices" (defaults: standard, hand, 100)."""

    rules: Rules = "standard"
    scoring: Scoring = "hand"
    target: Target = 100
    # The optional turn clock (docs/protocol-guide.md "Around the match"): seconds per action,
    # None for none. The engine keeps no time; the tables layer runs the clock.
    turn_seconds: int | None = None
    # A table played over days (docs/protocol-guide.md "Correspondence tables"): days per
    # move, None for a live table. Never with a turn clock.
    move_days: int | None = None

    def __post_init__(self) -> None:
        if self.rules not in RULES:
            raise BadAction(f"rules is one of {', '.join(RULES)}")
        if self.scoring not in SCORINGS:
            raise BadAction(f"scoring is one of {', '.join(SCORINGS)}")
        if isinstance(self.target, bool) or self.target not in TARGETS:
            raise BadAction("target is 100 or 250")
        seconds = self.turn_seconds
        if seconds is not None and (
            isinstance(seconds, bool)
            or not isinstance(seconds, int)
            or not TURN_SECONDS[0] <= seconds <= TURN_SECONDS[1]
        ):
            raise BadAction(f"turn_seconds is null or {TURN_SECONDS[0]} to {TURN_SECONDS[1]}")
        days = self.move_days
        if days is not None and (isinstance(days, bool) or days not in MOVE_DAYS):
            raise BadAction(f"move_days is null or one of {', '.join(map(str, MOVE_DAYS))}")
        if days is not None and seconds is not None:
            raise BadAction("a table has move_days or turn_seconds, not both")

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Options:
        """Options from `{"rules", "scoring", "target"}`; missing keys take the defaults.

        :raises BadAction: an unknown key or a value outside docs/rules.md "Table choices".
        """
        extra = set(d) - {"rules", "scoring", "target", "turn_seconds", "move_days"}
        if extra:
            raise BadAction(f"unknown option {sorted(map(str, extra))[0][:20]!r}")
        rules = _RULES.get(_text(d.get("rules", "standard")))
        scoring = _SCORINGS.get(_text(d.get("scoring", "hand")))
        target = d.get("target", 100)
        if rules is None:
            raise BadAction(f"rules is one of {', '.join(RULES)}")
        if scoring is None:
            raise BadAction(f"scoring is one of {', '.join(SCORINGS)}")
        whole = isinstance(target, int) and not isinstance(target, bool)
        checked = _TARGETS.get(target) if whole else None
        if checked is None:
            raise BadAction("target is 100 or 250")
        turn_seconds = d.get("turn_seconds")
        if turn_seconds is not None and not isinstance(turn_seconds, int):
            raise BadAction("turn_seconds is a whole number of seconds")
        move_days = d.get("move_days")
        if move_days is not None and not isinstance(move_days, int):
            raise BadAction("move_days is a whole number of days")
        return cls(rules, scoring, checked, turn_seconds, move_days)

    def to_dict(self) -> JsonObject:
        out: JsonObject = {"rules": self.rules, "scoring": self.scoring, "target": self.target}
        if self.turn_seconds is not None:  # tables without a clock stay as they were
            out["turn_seconds"] = self.turn_seconds
        if self.move_days is not None:  # live tables stay as they were
            out["move_days"] = self.move_days
        return out


@dataclass(frozen=True, slots=True)
class Order:
    """A seat's latest card order: in hand `hand`, made when the log was `at` entries
    long (so a replay puts it back exactly there), the cards as the seat sent them."""

    hand: int
    at: int
    cards: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {"hand": self.hand, "at": self.at, "cards": list(self.cards)}

    @classmethod
    def from_json(cls, obj: object) -> Order | None:
        """The order `to_json` wrote; None for anything else (an order is only how
        cards are shown: one that cannot be read is left out, never an error)."""
        if not isinstance(obj, Mapping):
            return None
        hand, at, cards = obj.get("hand"), obj.get("at"), obj.get("cards")
        if (
            isinstance(hand, bool)
            or not isinstance(hand, int)
            or isinstance(at, bool)
            or not isinstance(at, int)
            or not isinstance(cards, list)
            or not all(isinstance(c, str) for c in cards)
        ):
            return None
        return cls(hand, at, tuple(cards))
