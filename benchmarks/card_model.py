"""Fit and check the model of the opponent's cards (`hollywood_gin.bots.inference`).

    python benchmarks/card_model.py fit --deals 400 --seed 2000000      # prints COEFFICIENTS
    python benchmarks/card_model.py check --opponents openspiel,eager --deals 100 --seed 2100000 \
        --budget odds:card_odds=1 --budget odds+shaping:card_odds=1,shape_scale=0.5,patient_scale=1

Normal (seat 0) plays one seeded hand against each style (seat 1); at each of
normal's decisions, every card normal has not seen is a row: its features
(`inference.card_features`, from normal's view only) and whether the opponent
really held it (read from the match, which the bots never see).

`fit` fits a logistic regression (Newton's method, a small ridge) on the
in-house styles (`--styles`, default eager, gin, greedy, easy, normal; never
OpenSpiel's bot), deals 2 000 000 and up: apart from every deal the hard
benchmark screens (440 000) or validates (900 000) on.

`check` measures, on other deals (2 100 000 and up), how close the search's
worlds (`worlds.sample_opponent`, weighed by `evidence_weight` as the search
weighs them) come to the opponent's real hand, for today's budget and each
`--budget`: the share of its unknown cards dealt right (the oracle: all), and
the worlds' mean deadwood against the real one (mean error, and bias: negative
when the worlds hold less). It also prints the log-likelihood per held card of
the model's odds against a uniform deal.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_bots import budget_field
from benchmarks.bot_pool import POOL, STYLES
from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.inference import FEATURES, card_features, card_odds
from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.worlds import evidence_weight, sample_opponent
from hollywood_gin.engine.cards import full_deck, mask_of
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import deadwood_mask
from hollywood_gin.engine.options import Options

Row = tuple[tuple[float, ...], int]


def decisions(style: str, seed: int, deals: int) -> list[tuple[Seen, int]]:
    """(normal's Seen, the opponent's real hand mask) at each of normal's decisions."""
    out = []
    for d in range(seed, seed + deals):
        deck = full_deck()
        random.Random(d).shuffle(deck)
        me = Bot("normal", random.Random(d))
        opp = STYLES[style](random.Random(d + 1))
        options = Options("standard", "game", 100)
        match = Match(options, rng=random.Random(d), deck_orders=[deck], first_dealer=d % 2)
        match.start()
        bind = getattr(opp, "bind", None)
        if bind is not None:
            bind(match)
        players = (me, opp)
        while match.hand is not None and match.hand.phase != "over" and match.status == "playing":
            seat = 0 if match.legal(0) else 1
            for s in (0, 1):
                players[s].observe(match.view(s))
            view = match.view(seat)
            if seat == 0:
                seen = me.memory.seen(view)
                if seen is not None:
                    out.append((seen, mask_of(match.hand.cards[1])))
            match.apply(seat, players[seat].choose(view))
    return out


def rows_of(seen: Seen, real: int) -> list[Row]:
    return [(f, real >> i & 1) for i, f in card_features(seen).items()]


def fit(rows: list[Row], ridge: float = 1.0, rounds: int = 25) -> list[float]:
    """Logistic regression with an intercept (Newton's method)."""
    import numpy as np  # the `bench` extra's numpy; the site never imports it

    x = np.array([(1.0, *f) for f, _ in rows])
    y = np.array([label for _, label in rows], dtype=float)
    beta = np.zeros(x.shape[1])
    penalty = ridge * np.eye(x.shape[1])
    penalty[0, 0] = 0.0
    for _ in range(rounds):
        p = 1 / (1 + np.exp(-(x @ beta)))
        grad = x.T @ (y - p) - penalty @ beta
        hess = (x * (p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hess, grad)
        beta += step
        if float(np.abs(step).max()) < 1e-8:
            break
    return [float(b) for b in beta]


def log_likelihood(seen: Seen, real: int, scale: float) -> tuple[float, float, int]:
    """Over the opponent's unknown cards: log P under the odds (drawn one by one in
    proportion to them, in index order: an approximation) and under a uniform
    deal; and how many cards."""
    odds = card_odds(seen, scale=scale)
    held = [i for i in odds if real >> i & 1]
    total = sum(odds.values())
    model = uniform = 0.0
    left = len(odds)
    for i in held:
        model += math.log(odds[i] / total)
        uniform += math.log(1 / left)
        total -= odds[i]
        left -= 1
    return model, uniform, len(held)


def check(opponent: str, seed: int, deals: int, samples: int, budgets: dict[str, Budget]) -> None:
    """How close each budget's worlds come to the opponent's real hand (see the
    module's docstring), at normal's decisions after the opponent's first plain
    discard (before it, nothing but the pile takes is known)."""
    weights = Bot("normal").weights
    found = {name: [0.0, 0.0, 0.0] for name in budgets}  # right cards, |deadwood error|, bias
    model = uniform = 0.0
    cards = unknown = n = 0
    for seen, real in decisions(opponent, seed, deals):
        if not seen.opp_discards:
            continue
        n += 1
        m, u, k = log_likelihood(seen, real, 1.0)
        model, uniform, cards = model + m, uniform + u, cards + k
        hidden = real & ~seen.opp_has
        unknown += hidden.bit_count()
        real_deadwood = deadwood_mask(real)
        for name, budget in budgets.items():
            rng = random.Random(hidden)  # the same draws for every budget
            odds = card_odds(seen, scale=budget.card_odds) if budget.card_odds > 0 else None
            weighed = right = deadwood = 0.0
            for _ in range(samples):
                drawn = sample_opponent(seen, rng, budget, weights, odds=odds)
                if drawn is None:
                    break
                hand = drawn[0].hands[1 - seen.me]
                wt = evidence_weight(seen, hand, budget.evidence)  # as the search weighs it
                weighed += wt
                right += wt * (hand & hidden).bit_count()
                deadwood += wt * deadwood_mask(hand)
            if weighed > 0:
                found[name][0] += right / weighed
                found[name][1] += abs(deadwood / weighed - real_deadwood)
                found[name][2] += deadwood / weighed - real_deadwood
    print(f"# {opponent}, deals {seed}+{deals}, {n} decisions, {samples} worlds each")
    print(
        f"# log-likelihood per held card: odds {model / cards:.3f}, uniform {uniform / cards:.3f}"
        f" (gain {(model - uniform) / cards:+.3f} nats)"
    )
    print("| worlds | unknown cards dealt right | deadwood: mean error | bias |")
    print("|---|---|---|---|")
    for name, (right, error, bias) in found.items():
        print(f"| {name} | {100 * right / unknown:.1f} % | {error / n:.2f} | {bias / n:+.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("mode", choices=("fit", "check"))
    ap.add_argument("--styles", default=",".join(POOL), help="fit: the styles learnt from")
    ap.add_argument("--opponents", default="openspiel,eager", help="check: the styles met")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2000000)
    ap.add_argument("--samples", type=int, default=20, help="check: worlds per decision")
    ap.add_argument(
        "--budget",
        action="append",
        default=[],
        help="check: NAME:FIELD=VALUE,... a budget to compare (repeatable); `today` is Budget()",
    )
    args = ap.parse_args()
    if args.mode == "fit":
        rows: list[Row] = []
        for style in args.styles.split(","):
            for seen, real in decisions(style, args.seed, args.deals):
                rows.extend(rows_of(seen, real))
        beta = fit(rows)
        print(f"# {len(rows)} rows, styles {args.styles}, deals {args.seed}+{args.deals}")
        print(f"# intercept {beta[0]:+.3f}")
        for name, b in zip(FEATURES, beta[1:], strict=True):
            print(f"#   {name:12s} {b:+.3f}")
        print("COEFFICIENTS = (" + ", ".join(f"{b:.3f}" for b in beta[1:]) + ")")
        return
    budgets = {"today": Budget(card_odds=0.0)}
    for item in args.budget:
        name, _, fields = item.partition(":")
        budget = Budget()
        for field in filter(None, fields.split(",")):
            budget = budget_field(budget, field)
        budgets[name] = budget
    for opponent in args.opponents.split(","):
        check(opponent, args.seed, args.deals, args.samples, budgets)


if __name__ == "__main__":
    main()
