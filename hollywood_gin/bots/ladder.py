"""The ladder: eight computer opponents, levels 1 to 8, each a set of parameters of
the one policy and search (`Personality`), never a separate bot.

A personality names its base decision maker (`easy`, `normal` or `hard`), the hard
search's budget, its style as `Weights` (knock eagerness, gin hunting, appetite for
the discard pile, caution) and a `Mistakes` model: the slips a learning player
makes (misjudging what the opponent collects, holding high cards too long, knocking
too early), drawn from the bot's own seeded randomness, so the same seed and the
same views give the same slips. `easy`, `normal` and `hard` are three rungs and
keep their names (`STRENGTHS`).

Ratings are measured, not set here: `ratings.json` beside this module, written by
`hollywood-gin ratings` (see `bots.ratings` and docs/bots.md "The ladder").
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field

from hollywood_gin.bots import Bot
from hollywood_gin.bots.budget import Budget
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.playout import Decision
from hollywood_gin.bots.policy import (
    VALUE,
    WEIGHTS,
    Weights,
    indices,
    ranked_discards,
)
from hollywood_gin.engine.melds import arrange_mask, deadwood_mask


def N_(text: str) -> str:
    """Marks a string for translation (the web layer translates it)."""
    return text


@dataclass(frozen=True, slots=True)
class Mistakes:
    """How often (0..1, per decision where it can happen) a rung slips, and how."""

    # plays as if it had not seen which cards the opponent took or threw: feeds it
    misread: float = 0.0
    # keeps a high card (9, 10, face) that it should throw, throwing a lower one
    hold_high: float = 0.0
    # knocks as soon as the rules allow, where it would have played on
    early_knock: float = 0.0

    @property
    def any(self) -> bool:
        return bool(self.misread or self.hold_high or self.early_knock)


@dataclass(frozen=True, slots=True)
class Personality:
    """One rung of the ladder: parameters of the one policy and search."""

    id: str
    level: int
    name: str  # English; translated by the web layer (msgid)
    style: str  # one line, English (msgid): what sets it apart
    base: str  # "easy", "normal" or "hard": the decision maker the parameters tune
    weights: Weights = WEIGHTS
    playouts: int = 0  # the hard search's playouts per decision (base "hard")
    knock_margin: float | None = None  # the hard search's knock margin (None: its own)
    mistakes: Mistakes = field(default_factory=Mistakes)
    figure: str = ""  # the arena figure its style line names (`gin_rate`, ...)

    def budget(self) -> Budget:
        if self.base != "hard":
            return Budget()
        budget = Budget(playouts=self.playouts) if self.playouts else Budget()
        if self.knock_margin is not None:
            budget = dataclasses.replace(budget, knock_margin=self.knock_margin)
        return budget

    def bot(self, rng: random.Random | None = None) -> Bot:
        """A fresh computer seat playing this rung."""
        return LadderBot(self, rng)


# Knock eagerness: knock as soon as the rules allow (no early/late margin).
_EAGER = dataclasses.replace(WEIGHTS, early=2.0, late=1.0, opp_penalty=2.0)
# Gin hunting: below gin only once six stock draws are left.
_GIN = dataclasses.replace(WEIGHTS, gin_until=6)
# Discard-pile appetite: a pile card need not beat a blind draw, it may even be worse.
_MAGPIE = dataclasses.replace(WEIGHTS, take_margin=-4.0)
# Caution: the danger of a card to the opponent counts twice as much, some even without
# evidence, and it knocks only low (seldom undercut).
_CAUTIOUS = dataclasses.replace(WEIGHTS, danger=2.4, danger_base=0.5, early=8.0)

LADDER: tuple[Personality, ...] = (
    Personality(
        "rookie",
        1,
        N_("Rookie"),
        N_("Learning the game: holds on to high cards and grabs only cards that make a meld."),
        "easy",
        mistakes=Mistakes(hold_high=0.6),
    ),
    Personality(
        "easy",
        2,
        N_("Easy"),
        N_("A beginner: takes only cards that complete a meld and knocks as soon as it may."),
        "easy",
    ),
    Personality(
        "magpie",
        3,
        N_("Magpie"),
        N_("Cannot resist the discard pile: picks up from it more than anyone."),
        "normal",
        weights=_MAGPIE,
        mistakes=Mistakes(misread=0.3, early_knock=0.2),
        figure="pickups",
    ),
    Personality(
        "knocker",
        4,
        N_("Knocker"),
        N_("Knocks at the first chance: the earliest knocks on the ladder, and often undercut."),
        "normal",
        weights=_EAGER,
        mistakes=Mistakes(misread=0.2, hold_high=0.1),
        figure="knock_turn",
    ),
    Personality(
        "cautious",
        5,
        N_("Cautious"),
        N_("Plays it safe: throws the cards you are least likely to want, and knocks only low."),
        "normal",
        weights=_CAUTIOUS,
        mistakes=Mistakes(misread=0.1, hold_high=0.05),
        figure="feeds",
    ),
    Personality(
        "gin",
        6,
        N_("Gin hunter"),
        N_("Holds out for gin: goes gin far more often than the others, and knocks late."),
        "normal",
        weights=_GIN,
        mistakes=Mistakes(misread=0.2, hold_high=0.1),
        figure="gin_rate",
    ),
    Personality(
        "normal",
        7,
        N_("Normal"),
        N_("Plays sound, simple gin: keeps its hand low, watches your pickups, knocks low."),
        "normal",
    ),
    Personality(
        "hard",
        8,
        N_("Hard"),
        N_("Thinks before every move: plays the hand out hundreds of times and picks the best."),
        "hard",
    ),
)

BY_ID: dict[str, Personality] = {p.id: p for p in LADDER}
COMPUTER_IDS: tuple[str, ...] = tuple(BY_ID)


def personality(computer: str) -> Personality:
    """The rung with this id (`easy`, `normal`, `hard` included).

    :raises ValueError: no such computer.
    """
    try:
        return BY_ID[computer]
    except KeyError:
        raise ValueError(
            f"unknown computer {computer[:20]!r}; one of {', '.join(COMPUTER_IDS)}"
        ) from None


class LadderBot(Bot):
    """A `Bot` playing one personality: its base strength with its weights and budget,
    and its slips, drawn from the bot's rng (the same seed, the same slips)."""

    def __init__(self, who: Personality, rng: random.Random | None = None) -> None:
        super().__init__(who.base, rng, budget=who.budget(), weights=who.weights)
        self.who = who
        self.slipped: list[tuple[str, int]] = []  # (kind, stock count then): for tests and docs

    def _slip(self, rate: float) -> bool:
        # from the bot's own rng (the one a worker process hands back, so a table's
        # slips move on like its searches), drawn whether or not the rate is zero
        return self.rng.random() < rate

    def _decide(self, seen: Seen, kinds: set[str]) -> Decision:
        m = self.who.mistakes
        if not m.any:
            return super()._decide(seen, kinds)
        misread, hold_high, early = (
            self._slip(m.misread),
            self._slip(m.hold_high),
            self._slip(m.early_knock),
        )
        if misread and (seen.opp_has or seen.opp_threw):
            # what the opponent collects goes unnoticed: its pickups and throws unread
            seen = dataclasses.replace(seen, opp_has=0, opp_threw=0, opp_log=())
            self.slipped.append(("misread", seen.stock_count))
        decision = super()._decide(seen, kinds)
        if seen.phase != "discard" or decision[0] != "discard":
            return decision
        _, card, knock = decision
        if early and not knock:
            least = _least_keep(seen)
            if least is not None and deadwood_mask(seen.hand ^ (1 << least)) <= seen.knock_limit:
                self.slipped.append(("early_knock", seen.stock_count))
                return ("discard", least, True)
        if hold_high and not knock and VALUE[card] >= 9:
            kept = _keep_high(seen, self.weights, card)
            if kept is not None:
                self.slipped.append(("hold_high", seen.stock_count))
                return ("discard", kept, False)
        return decision


def _least_keep(seen: Seen) -> int | None:
    options = [
        (deadwood_mask(seen.hand ^ (1 << i)), -VALUE[i], i)
        for i in indices(seen.hand)
        if i != seen.forbidden
    ]
    return min(options)[2] if options else None


def _keep_high(seen: Seen, w: Weights, card: int) -> int | None:
    """The discard a player fond of its high cards makes instead of `card`: the best
    ranked loose card below 9 (a card in a meld stays: breaking a meld is no human
    slip). None: no such card."""
    _, _, loose = arrange_mask(seen.hand)
    low = 0
    for i in indices(loose):
        if VALUE[i] < 9 and i != seen.forbidden:
            low |= 1 << i
    if not low:
        return None
    return ranked_discards(seen, w, only=low)[0][1]
