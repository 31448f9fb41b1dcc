"""How well the hard search's worlds match the real opponent's hand.

    python benchmarks/bench_worlds.py --opponent openspiel --deals 40 --seed 400000
    python benchmarks/bench_worlds.py --opponent eager \
        --budget shape_turns=8,shape_scale=1,shape_base=0,patient_scale=1  # round 1

Normal (seat 0) plays duplicate-style seeded deals against a pool style; at each of
normal's discards the search's sampler (`worlds.sample_opponent`, the default
`Budget` or `--budget` fields) deals the opponent's hand 40 times from normal's
view, and the mean sampled deadwood is printed beside the opponent's real
deadwood (read from the match, which the search never sees), and how often the
eager style was drawn with it, by how many stock cards both seats have drawn.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_bots import budget_field
from benchmarks.bot_pool import STYLES
from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.worlds import evidence_weight, sample_opponent
from hollywood_gin.engine.cards import full_deck, mask_of
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import deadwood_mask
from hollywood_gin.engine.options import Options


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--opponent", default="openspiel")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=400000)
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--budget", default="", help="Budget fields, e.g. shape_scale=1,shape_turns=8")
    args = ap.parse_args()
    budget = Budget()
    for item in filter(None, args.budget.split(",")):
        budget = budget_field(budget, item)
    rows: list[tuple[int, int, float, float, float]] = []
    for d in range(args.seed, args.seed + args.deals):
        deck = full_deck()
        random.Random(d).shuffle(deck)
        me = Bot("normal", random.Random(d))
        opp = STYLES[args.opponent](random.Random(d + 1))
        options = Options("standard", "game", 100)
        match = Match(options, rng=random.Random(d), deck_orders=[deck], first_dealer=0)
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
            if seat == 0 and match.hand.phase == "discard":
                seen = me.memory.seen(view)
                assert seen is not None
                real = deadwood_mask(mask_of(match.hand.cards[1]))
                rng = random.Random(d)
                sampled = []
                weights = []
                eager = 0
                for _ in range(args.samples):
                    drawn = sample_opponent(seen, rng, budget, me.weights)
                    assert drawn is not None
                    sampled.append(deadwood_mask(drawn[0].hands[1]))
                    eager += drawn[1] == "eager"
                    weights.append(evidence_weight(seen, drawn[0].hands[1], budget.evidence))
                weighted = sum(w * x for w, x in zip(weights, sampled, strict=True)) / sum(weights)
                mean = statistics.mean(sampled)
                rows.append((31 - seen.stock_count, real, mean, weighted, eager / args.samples))
            match.apply(seat, players[seat].choose(view))
    print(f"# {args.opponent}, deals {args.seed}+{args.deals}, budget {args.budget or 'default'}")
    print(
        "| stock cards drawn | decisions | real deadwood | sampled | weighted by evidence"
        " | eager style drawn |"
    )
    print("|---|---|---|---|---|---|")
    for k in range(5):
        some = [(r, s, e, g) for drawn, r, s, e, g in rows if min(drawn // 4, 4) == k]
        if some:
            label = f"{4 * k}+" if k == 4 else f"{4 * k}–{4 * k + 3}"
            real = statistics.mean(r for r, _, _, _ in some)
            sampled = statistics.mean(s for _, s, _, _ in some)
            weighted = statistics.mean(e for _, _, e, _ in some)
            eager = statistics.mean(g for _, _, _, g in some)
            print(
                f"| {label} | {len(some)} | {real:.1f} | {sampled:.1f} | {weighted:.1f}"
                f" | {100 * eager:.0f} % |"
            )


if __name__ == "__main__":
    main()
