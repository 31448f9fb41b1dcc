"""A diagnostic: would a particle filter over the opponent's hand deal better worlds?

    python benchmarks/card_filter.py --opponents openspiel,eager --deals 100 --seed 2100000

Normal (seat 0) plays one seeded hand against a pool style (seat 1), as in
`card_model.py check`. A particle filter follows the opponent's hand from the
deal, on what seat 0 sees only: each particle is a hand of the opponent, dealt
at random from the cards seat 0 has not seen; the opponent's pile takes are added
to every particle, each weighed by how likely the take (or the pass) was with
that hand (a card that melds is taken 90 % of the time, one that lowers the
deadwood by more than 2 half the time, another 5 %); a stock draw adds a random
unseen card, or the card it then throws when the particle does not hold it (at
the chance of drawing it); each discard is weighed by exp(-regret / T), its regret
being how much more deadwood it kept than the best discard of the eleven cards
(mixed with 5 % of a uniform choice), and a ten-card hand it kept without
knocking though it could have by 0.3. A card seat 0 draws from the stock leaves
any particle that held it (swapped for another unseen card). The particles are
resampled when their effective number falls below half.

At each of seat 0's decisions after the opponent's first plain discard it prints,
beside today's sampler (`worlds.sample_opponent` weighed by `evidence_weight`),
how many of the opponent's unknown cards the worlds deal right and how far their
deadwood is from the real one. A diagnostic of docs/research/bots-log.md "Round 8", not a
player (commit 55a9dd0 also prints round 8's card model beside them).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_pool import STYLES
from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.arena import deal_deck
from hollywood_gin.bots.knowledge import FULL, Seen
from hollywood_gin.bots.policy import indices, makes_meld
from hollywood_gin.bots.worlds import evidence_weight, sample_opponent
from hollywood_gin.engine.cards import Card, mask_of
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import deadwood_mask, discard_least
from hollywood_gin.engine.options import Options

UNIFORM = 0.05  # the share of a discard's likelihood that is a uniform choice
NOT_KNOCKED = 0.3  # the likelihood of keeping a hand it could have knocked with


def _pick(mask: int, rng: random.Random) -> int:
    cards = indices(mask)
    return cards[rng.randrange(len(cards))]


class Particles:
    """The opponent's hand as weighted particles, from one seat's public view."""

    def __init__(self, mine: int, upcard: int, n: int, temperature: float, rng: random.Random):
        self.rng = rng
        self.n = n
        self.temperature = temperature
        self.out = mine | (1 << upcard)  # cards known not to be the opponent's
        self.taken = 0  # cards it took from the pile and still holds
        unseen = indices(FULL & ~self.out)
        self.hands = [sum(1 << i for i in rng.sample(unseen, 10)) for _ in range(n)]
        self.weights = [1.0 / n] * n
        self.drawing = False  # it drew from the stock and has not thrown yet

    def _unseen(self, hand: int) -> int:
        return FULL & ~(self.out | hand)

    @staticmethod
    def _take_chance(hand: int, card: int) -> float:
        if makes_meld(hand, card):
            return 0.9
        eleven = hand | (1 << card)
        least = discard_least(eleven)
        best = min(least[i] for i in indices(hand))
        return 0.5 if best < deadwood_mask(hand) - 2 else 0.05

    def took(self, card: int) -> None:
        for k, hand in enumerate(self.hands):
            self.weights[k] *= self._take_chance(hand, card)
            self.hands[k] = hand | (1 << card)
        self.out &= ~(1 << card)
        self.taken |= 1 << card
        self._settle()

    def passed(self, card: int) -> None:
        for k, hand in enumerate(self.hands):
            self.weights[k] *= 1 - self._take_chance(hand, card)
        self._settle()

    def drew_stock(self, top: int) -> None:
        if top >= 0:
            self.passed(top)
        self.drawing = True

    def _discard_chance(self, eleven: int, card: int) -> float:
        least = discard_least(eleven)
        options = indices(eleven)
        best = min(least[i] for i in options)
        total = sum(math.exp(-(least[i] - best) / self.temperature) for i in options)
        chance = math.exp(-(least[card] - best) / self.temperature) / total
        return (1 - UNIFORM) * chance + UNIFORM / len(options)

    def threw(self, card: int, knock_limit: int) -> None:
        for k, hand in enumerate(self.hands):
            unseen = self._unseen(hand)
            if self.drawing and hand >> card & 1:
                hand |= 1 << _pick(unseen & ~(1 << card), self.rng)
            elif not hand >> card & 1:
                # it drew this very card, or (after a pile take) held it all along
                if not self.drawing:
                    hand &= ~(1 << _pick(hand & ~self.taken, self.rng))
                hand |= 1 << card
                self.weights[k] /= max(1, unseen.bit_count())
            self.weights[k] *= self._discard_chance(hand, card)
            hand &= ~(1 << card)
            if deadwood_mask(hand) <= knock_limit:
                self.weights[k] *= NOT_KNOCKED
            self.hands[k] = hand
        self.drawing = False
        self.out |= 1 << card
        self.taken &= ~(1 << card)
        self._settle()

    def gone(self, card: int) -> None:
        """A card seat 0 now knows is not the opponent's (drawn, thrown, taken)."""
        self.out |= 1 << card
        for k, hand in enumerate(self.hands):
            if hand >> card & 1:
                swap = _pick(self._unseen(hand) & ~(1 << card), self.rng)
                self.hands[k] = (hand & ~(1 << card)) | (1 << swap)

    def _settle(self) -> None:
        total = sum(self.weights)
        if total <= 0:
            self.weights = [1.0 / self.n] * self.n
            return
        self.weights = [w / total for w in self.weights]
        if 1 / sum(w * w for w in self.weights) < self.n / 2:
            self.hands = self.rng.choices(self.hands, self.weights, k=self.n)
            self.weights = [1.0 / self.n] * self.n

    def sample(self, k: int) -> list[int]:
        return self.rng.choices(self.hands, self.weights, k=k)


Score = list[float]  # right cards, |deadwood error|, bias


def _note(score: Score, hands: list[tuple[int, float]], hidden: int, real_deadwood: int) -> None:
    total = sum(w for _, w in hands)
    deadwood = sum(w * deadwood_mask(h) for h, w in hands) / total
    score[0] += sum(w * (h & hidden).bit_count() for h, w in hands) / total
    score[1] += abs(deadwood - real_deadwood)
    score[2] += deadwood - real_deadwood


def _today(seen: Seen, hidden: int, samples: int, me: Bot) -> list[tuple[int, float]]:
    """Today's worlds, weighed as the search weighs them."""
    budget = Budget()
    rng = random.Random(hidden)
    hands = []
    for _ in range(samples):
        drawn = sample_opponent(seen, rng, budget, me.weights)
        if drawn is not None:
            hand = drawn[0].hands[1 - seen.me]
            hands.append((hand, evidence_weight(seen, hand, budget.evidence)))
    return hands


def _over(match: Match) -> bool:
    return match.hand is None or match.hand.phase == "over" or match.status != "playing"


def run(style: str, seed: int, deals: int, n: int, temperature: float, samples: int) -> None:
    scores: dict[str, Score] = {}
    unknown = decisions = 0
    for d in range(seed, seed + deals):
        deck = deal_deck(d)  # the arena's deal d
        me = Bot("normal", random.Random(d))
        opp = STYLES[style](random.Random(d + 1))
        options = Options("standard", "game", 100)
        match = Match(options, rng=random.Random(d), deck_orders=[deck], first_dealer=d % 2)
        match.start()
        bind = getattr(opp, "bind", None)
        if bind is not None:
            bind(match)
        players = (me, opp)
        hand = match.hand
        assert hand is not None
        top = match.view(0).hand
        assert top is not None and top.discard_top is not None
        particles = Particles(
            mask_of(hand.cards[0]),
            Card.parse(top.discard_top).index,
            n,
            temperature,
            random.Random(d),
        )
        while not _over(match):
            seat = 0 if match.legal(0) else 1
            for s in (0, 1):
                players[s].observe(match.view(s))
            view = match.view(seat)
            assert view.hand is not None
            if seat == 0:
                seen = me.memory.seen(view)
                if seen is not None and seen.opp_discards:
                    real = mask_of(match.hand.cards[1])
                    hidden = real & ~seen.opp_has
                    decisions += 1
                    unknown += hidden.bit_count()
                    found = {
                        "today's sampler": _today(seen, hidden, samples, me),
                        "particle filter": [(h, 1.0) for h in particles.sample(samples)],
                    }
                    for name, hands in found.items():
                        _note(
                            scores.setdefault(name, [0.0, 0.0, 0.0]),
                            hands,
                            hidden,
                            deadwood_mask(real),
                        )
            top_card = Card.parse(view.hand.discard_top).index if view.hand.discard_top else -1
            before = mask_of(match.hand.cards[0])
            action = players[seat].choose(view)
            match.apply(seat, action)
            if _over(match):
                break
            kind = action.kind
            if seat == 1:
                if kind in ("take_upcard", "draw_discard"):
                    particles.took(top_card)
                elif kind == "pass":
                    particles.passed(top_card)
                elif kind == "draw_stock":
                    particles.drew_stock(top_card)
                elif kind == "discard" and action.card is not None:
                    particles.threw(action.card.index, view.hand.knock_limit)
            elif kind == "draw_stock":
                for c in indices(mask_of(match.hand.cards[0]) & ~before):
                    particles.gone(c)
            elif kind == "discard" and action.card is not None:
                particles.gone(action.card.index)
            elif kind in ("take_upcard", "draw_discard"):
                particles.gone(top_card)
    print(
        f"# {style}, deals {seed}+{deals}, {decisions} decisions, {n} particles, T = {temperature}"
    )
    print("| worlds | unknown cards dealt right | deadwood: mean error | bias |")
    print("|---|---|---|---|")
    for name, (right, error, bias) in scores.items():
        share = f"{100 * right / unknown:.1f} %"
        print(f"| {name} | {share} | {error / decisions:.2f} | {bias / decisions:+.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--opponents", default="openspiel,eager")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2100000)
    ap.add_argument("--particles", type=int, default=2000)
    ap.add_argument("--temperature", type=float, default=0.25)
    ap.add_argument("--samples", type=int, default=20, help="worlds per decision")
    args = ap.parse_args()
    for style in args.opponents.split(","):
        run(style, args.seed, args.deals, args.particles, args.temperature, args.samples)


if __name__ == "__main__":
    main()
