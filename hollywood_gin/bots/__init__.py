"""The computer opponent: decides from a seat's view only (depends on the engine alone).

Two ways in, both fed nothing but what a seat's browser gets (`match.view(seat)`,
the `View` whose `wire()` is the `state` body):

- `Bot(strength, rng)`: one per computer seat, held by the caller for the
  life of the table. Call `bot.observe(view)` with every state the seat is
  sent, and `bot.choose(view)` when `view.legal` is not empty; it returns
  one of `view.legal`. It remembers, from the views, the discard pile
  and which cards the opponent took from it or threw.
- `choose_action(view, strength, rng)`: the same decision from this one view
  alone (no memory beyond what the view shows).

Strengths: `easy`, `normal`, `hard` (see `policy` and `search`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from hollywood_gin.bots.budget import Budget
from hollywood_gin.bots.knowledge import BotMemory, Seen
from hollywood_gin.bots.playout import Decision
from hollywood_gin.bots.policy import (
    WEIGHTS,
    Weights,
    easy_discard,
    easy_take,
    normal_discard,
    normal_take,
)
from hollywood_gin.bots.search import SearchStats, hard_decide
from hollywood_gin.engine.actions import END_KINDS, MATCH_KINDS, Action
from hollywood_gin.engine.cards import CARDS
from hollywood_gin.engine.views import View
from hollywood_gin.engine.vocabulary import STRENGTHS

__all__ = ["STRENGTHS", "Bot", "BotMemory", "Budget", "NoLegalAction", "choose_action"]


class NoLegalAction(ValueError):
    """The view offers this seat no action: it is not its turn to act."""


class Bot:
    """A computer seat: observes every view of its seat and chooses when asked.

    :param strength: `easy`, `normal` or `hard`.
    :param rng: the randomness of the hard search (default: seeded from the OS);
        each searched decision draws one seed from it, so the same seed and the
        same views give the same moves.
    :param budget: the hard search's playouts per decision (and its safety cap).
    :raises ValueError: an unknown strength.
    """

    def __init__(
        self,
        strength: str = "normal",
        rng: random.Random | None = None,
        *,
        budget: Budget | None = None,
        weights: Weights = WEIGHTS,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if strength not in STRENGTHS:
            raise ValueError(f"unknown strength {strength!r}; one of {', '.join(STRENGTHS)}")
        self.strength = strength
        self.rng = rng if rng is not None else random.Random()
        self.budget = budget if budget is not None else Budget()
        self.weights = weights
        self.clock = clock
        self.memory = BotMemory()
        self.last_search = SearchStats()
        self._started = 0.0

    def observe(self, view: View) -> None:
        """Remember what this view shows (call it for every state the seat gets)."""
        self.memory.observe(view)

    def choose(self, view: View) -> Action:
        """One of `view.legal`.

        :raises NoLegalAction: `view.legal` is empty.
        """
        self._started = self.clock()  # the time budget counts the whole move
        legal = view.legal
        if any(a.kind in END_KINDS for a in legal):
            # Resigning, claiming a match or asking for a stand-in is a person's call.
            legal = tuple([a for a in legal if a.kind not in END_KINDS])
            view = view._replace(legal=legal)
        if not legal:
            raise NoLegalAction("no legal action in this view")
        seen = self.memory.seen(view)
        kinds: set[str] = {a.kind for a in legal}
        if len(legal) == 1 or seen is None or not kinds - set(MATCH_KINDS):
            return legal[0]
        decision = self._decide(seen, kinds)
        return _to_action(decision, legal)

    def _decide(self, seen: Seen, kinds: set[str]) -> Decision:
        if seen.phase == "discard":
            if self.strength == "easy":
                card, knock = easy_discard(seen)
                return ("discard", card, knock)
            if self.strength == "normal":
                card, knock = normal_discard(seen, self.weights)
                return ("discard", card, knock)
        elif self.strength != "hard":
            if seen.top < 0 or not kinds & {"take_upcard", "draw_discard"}:
                return ("take", 0, False)
            take = easy_take if self.strength == "easy" else _normal_take(self.weights)
            return ("take", int(take(seen, seen.top)), False)
        return hard_decide(
            seen,
            kinds,
            self.rng,
            budget=self.budget,
            weights=self.weights,
            clock=self.clock,
            stats=self.last_search,
            start=self._started,
        )


def _normal_take(w: Weights) -> Callable[[Seen, int], bool]:
    return lambda seen, top: normal_take(seen, top, w)


def _to_action(decision: Decision, legal: tuple[Action, ...]) -> Action:
    """The legal action that carries out an internal decision."""
    wanted: list[Callable[[Action], bool]]
    if decision[0] == "take":
        if decision[1]:
            wanted = [lambda a: a.kind in ("take_upcard", "draw_discard")]
        else:
            wanted = [lambda a: a.kind in ("pass", "draw_stock")]
    else:
        card = CARDS[decision[1]]
        kind = "knock" if decision[2] else "discard"
        wanted = [lambda a: a.kind == kind and a.card == card, lambda a: a.kind == "discard"]
    for test in wanted:
        for action in legal:
            if test(action):
                return action
    return legal[0]


def choose_action(view: View, strength: str, rng: random.Random | None = None) -> Action:
    """One of `view.legal`, decided from this view alone.

    :raises ValueError: an unknown strength.
    :raises NoLegalAction: the view offers no action.
    """
    return Bot(strength, rng).choose(view)
