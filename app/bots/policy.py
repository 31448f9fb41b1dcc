"""The easy and normal policies, as functions of a `Seen` (masks, no views).

Both answer the same three questions, so the hard search can play them out
in its simulator without building views:

- `take(seen, top)`: take the upcard / the discard pile's top (else pass / draw
  from the stock);
- `discard(seen)`: which card to throw after drawing, and whether to knock
  with it (the discard of a knock goes face down).

Easy is the rules text of the task: take a card only when it makes a meld,
throw the highest deadwood card, knock as soon as the rules allow.

Normal scores a 10-card keep as deadwood minus the expected relief from the
cards that can still come (live: not in my hand, not in the pile, not known
in the opponent's hand), plus a danger for the card thrown (how well it fits
what the opponent can still hold, more when it took such cards from the pile,
less when it threw or declined their neighbours). It knocks early while the
stock is full and asks for less deadwood as the stock runs out, and at the
wall (game/hollywood: a discard leaving two cards is a draw) it prefers the
draw to a risky position.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.bots.knowledge import FULL, Seen
from app.engine.melds import arrange_mask, deadwood_mask

VALUE = tuple(min(i % 13 + 1, 10) for i in range(52))
RANK_BITS = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))


def indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def makes_meld(hand: int, i: int) -> bool:
    """Does card `i` form a set or a run with two cards of `hand`?"""
    r = i % 13
    if (hand & RANK_BITS[r] & ~(1 << i)).bit_count() >= 2:
        return True
    below1 = r >= 1 and hand >> (i - 1) & 1
    below2 = r >= 2 and hand >> (i - 2) & 1
    above1 = r <= 11 and hand >> (i + 1) & 1
    above2 = r <= 10 and hand >> (i + 2) & 1
    return bool((below1 and (below2 or above1)) or (above1 and above2))


def _discard_options(seen: Seen, hand: int) -> dict[int, int]:
    """Each discardable card of an 11-card hand -> the deadwood of the ten left."""
    return {i: deadwood_mask(hand ^ (1 << i)) for i in indices(hand) if i != seen.forbidden}


# -- easy ----------------------------------------------------------------------


def easy_take(seen: Seen, top: int) -> bool:
    return makes_meld(seen.hand, top)


def easy_discard(seen: Seen) -> tuple[int, bool]:
    options = _discard_options(seen, seen.hand)
    least = min(options, key=lambda i: (options[i], -VALUE[i], -i))
    if options[least] <= seen.knock_limit:
        return least, True
    _, _, dead = arrange_mask(seen.hand)
    loose = [i for i in indices(dead) if i != seen.forbidden]
    if loose:
        return max(loose, key=lambda i: (VALUE[i], i)), False
    return least, False


# -- normal --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Weights:
    """The normal policy's knobs (tuned with `benchmarks/bench_bots.py --tune`)."""

    relief: float = 0.6  # how much expected relief from live cards counts against deadwood
    danger: float = 1.2  # points per unit of "the opponent can use this card"
    take_margin: float = 0.5  # a pile card must beat a blind draw by this much
    wall_knock: int = 5  # at the wall, knock with at most this deadwood
    late: float = 1.0  # knock limit lowered by this per two stock cards below 16
    opp_penalty: float = 1.5  # and by this per card the opponent took from the pile (two at most)


WEIGHTS = Weights()


def _neighbour(i: int, step: int) -> int:
    """The bit of the card `step` ranks above `i` in its suit (0 off the suit's end)."""
    r = i % 13 + step
    return 1 << (i + step) if 0 <= r <= 12 else 0


_UP1 = tuple(_neighbour(i, 1) for i in range(52))
_UP2 = tuple(_neighbour(i, 2) for i in range(52))
_DN1 = tuple(_neighbour(i, -1) for i in range(52))
_DN2 = tuple(_neighbour(i, -2) for i in range(52))
_MATES = tuple(RANK_BITS[i % 13] & ~(1 << i) for i in range(52))
_RANK_OF = tuple(RANK_BITS[i % 13] for i in range(52))


def _relief(hand: int, loose: int, live: int, q: float) -> float:
    """Expected deadwood removed by future draws: for each loose card, its value
    times the chance that one of the live cards melding it arrives."""
    miss = 1.0 - q
    total = 0.0
    m = loose
    while m:
        low = m & -m
        m ^= low
        i = low.bit_length() - 1
        outs = live & _RANK_OF[i] if loose & _MATES[i] else 0  # a pair: a third makes a set
        if hand & _UP1[i]:
            outs |= live & (_DN1[i] | _UP2[i])  # two in a row: either end
        elif hand & _UP2[i]:
            outs |= live & _UP1[i]  # a gap: only the middle card
        if hand & _DN1[i]:
            outs |= live & (_DN2[i] | _UP1[i])
        elif hand & _DN2[i]:
            outs |= live & _DN1[i]
        if outs:
            total += VALUE[i] * (1.0 - miss ** outs.bit_count())
    return total


def keep_score(seen: Seen, ten: int, thrown: int = 0, w: Weights = WEIGHTS) -> float:
    """How bad a 10-card keep is (lower is better): deadwood minus expected relief."""
    dw, _, loose = arrange_mask(ten)
    if dw == 0:
        return 0.0
    live = FULL & ~(ten | seen.dead | seen.opp_has | thrown)
    unseen = live.bit_count()
    if not unseen:
        return float(dw)
    q = min(1.0, seen.drawable / 2 / unseen)
    return dw - w.relief * _relief(ten, loose, live, q)


def danger(seen: Seen, i: int, keep: int) -> float:
    """How well card `i` fits cards the opponent may hold (0: it cannot meld it)."""
    possible = FULL & ~(keep | seen.dead | (1 << i))
    known = seen.opp_has
    threw = seen.opp_threw
    r = i % 13
    score = 0.0
    mates = RANK_BITS[r] & ~(1 << i)
    if (mates & possible).bit_count() >= 2:
        s = 0.5 + 2.0 * (mates & known).bit_count()
        if mates & threw:
            s *= 0.3
        score += s
    for a, b in ((-2, -1), (-1, 1), (1, 2)):
        if 0 <= r + a <= 12 and 0 <= r + b <= 12:
            pair = (1 << (i + a)) | (1 << (i + b))
            if pair & possible == pair:
                s = 0.4 + 2.0 * (pair & known).bit_count()
                if pair & threw:
                    s *= 0.4
                score += s
    return score


def should_knock(seen: Seen, deadwood: int, w: Weights = WEIGHTS) -> bool:
    """Knock early while the opponent's hand is still loose; later ask for less."""
    if deadwood > seen.knock_limit:
        return False
    if deadwood == 0:
        return True
    left = seen.drawable
    if seen.wall and left == 0:
        # a plain discard now ends the hand as a draw, worth nothing to either
        return deadwood <= w.wall_knock
    threshold = seen.knock_limit - w.late * max(0.0, (16 - left) / 2)
    # cards the opponent took from the pile are usually melds: it is closer
    threshold -= w.opp_penalty * min(2, seen.opp_has.bit_count())
    return deadwood <= max(1.0, threshold)


def normal_take(seen: Seen, top: int, w: Weights = WEIGHTS) -> bool:
    hand = seen.hand
    eleven = hand | (1 << top)
    if seen.wall and seen.drawable == 1:
        # a stock draw now leaves two: my discard then ends the hand as a draw,
        # while taking the pile card gives the opponent the last draw
        return any(should_knock(seen, deadwood_mask(eleven ^ (1 << c)), w) for c in indices(hand))
    now = keep_score(seen, hand, 0, w)
    best = min(
        keep_score(seen, eleven ^ (1 << c), 1 << c, w)
        + w.danger * danger(seen, c, eleven ^ (1 << c))
        for c in indices(hand)
    )
    return best + w.take_margin < now


def normal_discard(seen: Seen, w: Weights = WEIGHTS) -> tuple[int, bool]:
    hand = seen.hand
    options = _discard_options(seen, hand)
    least = min(options, key=lambda i: (options[i], -VALUE[i], -i))
    if should_knock(seen, options[least], w):
        return least, True
    best, best_score = least, float("inf")
    for i in options:
        keep = hand ^ (1 << i)
        score = keep_score(seen, keep, 1 << i, w) + w.danger * danger(seen, i, keep)
        if score < best_score:
            best, best_score = i, score
    return best, False


def ranked_discards(seen: Seen, w: Weights = WEIGHTS) -> list[tuple[float, int]]:
    """Every discard with its normal score, best first (the hard search's candidates)."""
    hand = seen.hand
    out = []
    for i in _discard_options(seen, hand):
        keep = hand ^ (1 << i)
        out.append((keep_score(seen, keep, 1 << i, w) + w.danger * danger(seen, i, keep), i))
    out.sort()
    return out
