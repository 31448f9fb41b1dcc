"""The easy and normal policies, as functions of a `Seen` (masks, no views).

Both answer the same three questions, so the hard search can play them out
in its simulator without building views:

- `take(seen, top)`: take the upcard / the discard pile's top (else pass / draw
  from the stock);
- `discard(seen)`: which card to throw after drawing, and whether to knock
  with it (the discard of a knock goes face down).

Easy is the rules text of the task: take a card only when it makes a meld,
throw the highest deadwood card, knock as soon as the rules allow.

Normal scores a 10-card keep by its expected deadwood one draw ahead,
drawing from the live cards (not in my hand, not in the pile, not known in
the opponent's hand: cards gone are counted), a keep that may knock
counting better; plus a danger for the card thrown (how well it fits
what the opponent can still hold, more when it took such cards from the pile,
less when it threw or declined their neighbours). It knocks early while the
stock is full and asks for less deadwood as the stock runs out, and at the
wall (game/hollywood: a discard leaving two cards is a draw) it prefers the
draw to a risky position.
"""

from __future__ import annotations

from dataclasses import dataclass

from hollywood_gin.bots.knowledge import FULL, Seen
from hollywood_gin.engine.melds import arrange_mask, deadwood_mask, discard_least

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
    """The normal policy's knobs (chosen by duplicate-deal runs against easy)."""

    danger: float = 1.2  # points per unit of "the opponent can use this card"
    # danger only from evidence (cards the opponent took): the "any card may fit"
    # part made normal keep high cards, which cost more than it saved
    danger_base: float = 0.0
    take_margin: float = 2.0  # a pile card must beat a blind stock draw by this much
    knock_bonus: float = 5.0  # a keep that may knock counts this much better
    wall_knock: int = 5  # at the wall, knock with at most this deadwood
    # Knocking late and low: a knock is worth D - K, but a hand kept low also
    # undercuts the opponent's knock (K - D + 25), which against a bot that
    # knocks as soon as it may is worth more than knocking first.
    early: float = 6.0  # knock limit lowered by this from the start
    late: float = 2.0  # and by this per two stock cards below 16
    opp_penalty: float = 5.0  # and by this per card the opponent took from the pile (two at most)
    # the keep's deadwood now counts too, more as the opponent's turns pass:
    # it is what the opponent's knock would cost me (and what undercuts it)
    hold: float = 1.0
    hold_turns: float = 8.0  # turns the opponent must have played for `hold` to count fully
    # a gin hunter's patience (the ladder's styles): knock below gin only once at most
    # this many stock draws are left (0: no such patience)
    gin_until: int = 0


WEIGHTS = Weights()


def _worth(deadwood: int, limit: int, w: Weights) -> float:
    """A keep's deadwood, counted better when it may knock (lower is better)."""
    return deadwood - w.knock_bonus if deadwood <= limit else float(deadwood)


def after_one_draw(ten: int, live: int, limit: int, w: Weights = WEIGHTS) -> float:
    """The mean `_worth` of a 10-card keep after one more draw from the live cards
    (each equally likely) and the best discard then.

    Only a card that melds with the keep can change the arrangement; any other
    card x just replaces the keep's worst card if that helps, which is the best
    nine-card deadwood plus x's value. That leaves a full solve for the few
    cards that meld.
    """
    dw = deadwood_mask(ten)
    cards = indices(ten)
    if not live:
        return _worth(dw, limit, w)
    # one solve for every discard (`discard_least`) instead of one per discard
    least = discard_least(ten)
    nine = min(least[y] for y in cards)
    total = 0.0
    n = 0
    m = live
    while m:
        low = m & -m
        m ^= low
        x = low.bit_length() - 1
        if makes_meld(ten, x):
            least = discard_least(ten | low)
            best = min(least[y] for y in cards)
        else:
            best = nine + VALUE[x]
        total += _worth(min(dw, best), limit, w)
        n += 1
    return total / n


def _live(seen: Seen, ten: int, thrown: int) -> int:
    """Cards I may still draw: not mine, not in the pile, not known to be the opponent's."""
    return FULL & ~(ten | seen.dead | seen.opp_has | thrown)


def danger(seen: Seen, i: int, keep: int, base: float = 1.0) -> float:
    """How well card `i` fits cards the opponent may hold (0: it cannot meld it)."""
    possible = FULL & ~(keep | seen.dead | (1 << i))
    known = seen.opp_has
    threw = seen.opp_threw
    r = i % 13
    score = 0.0
    mates = RANK_BITS[r] & ~(1 << i)
    if (mates & possible).bit_count() >= 2:
        s = 0.5 * base + 2.0 * (mates & known).bit_count()
        if mates & threw:
            s *= 0.3
        score += s
    for a, b in ((-2, -1), (-1, 1), (1, 2)):
        if 0 <= r + a <= 12 and 0 <= r + b <= 12:
            pair = (1 << (i + a)) | (1 << (i + b))
            if pair & possible == pair:
                s = 0.4 * base + 2.0 * (pair & known).bit_count()
                if pair & threw:
                    s *= 0.4
                score += s
    return score


def knock_target(seen: Seen, w: Weights = WEIGHTS) -> float:
    """The most deadwood normal knocks with here (away from the wall)."""
    left = seen.drawable
    threshold = seen.knock_limit - w.early - w.late * max(0.0, (16 - left) / 2)
    # cards the opponent took from the pile are usually melds: it is closer
    threshold -= w.opp_penalty * min(2, seen.opp_has.bit_count())
    return max(1.0, threshold)


def should_knock(seen: Seen, deadwood: int, w: Weights = WEIGHTS) -> bool:
    """Knock early while the opponent's hand is still loose; later ask for less."""
    if deadwood > seen.knock_limit:
        return False
    if deadwood == 0:
        return True
    if w.gin_until and seen.drawable > w.gin_until:
        return False
    if seen.wall and seen.drawable == 0:
        # a plain discard now ends the hand as a draw, worth nothing to either
        return deadwood <= w.wall_knock
    return deadwood <= knock_target(seen, w)


def normal_take(seen: Seen, top: int, w: Weights = WEIGHTS) -> bool:
    hand = seen.hand
    eleven = hand | (1 << top)
    if seen.wall and seen.drawable == 1:
        # a stock draw now leaves two: my discard then ends the hand as a draw,
        # while taking the pile card gives the opponent the last draw
        return any(should_knock(seen, deadwood_mask(eleven ^ (1 << c)), w) for c in indices(hand))
    # taking: a known keep now; the stock: the expected keep after one draw
    blind = after_one_draw(hand, _live(seen, hand, 0), seen.knock_limit, w)
    kept = discard_least(eleven)  # each keep's deadwood, one solve
    taken = min(
        _worth(kept[c], seen.knock_limit, w)
        + w.danger * danger(seen, c, eleven ^ (1 << c), w.danger_base)
        for c in indices(hand)
    )
    return taken + w.take_margin < blind


def ranked_discards(seen: Seen, w: Weights = WEIGHTS, only: int = 0) -> list[tuple[float, int]]:
    """Every discard (or those of the mask `only`) with its one-draw score (plus
    danger), best first."""
    hand = seen.hand
    out = []
    risk = min(1.0, max(0, 31 - seen.stock_count) / 2 / w.hold_turns)
    limit = seen.knock_limit
    kept = discard_least(hand) if w.hold else []  # each keep's deadwood, one solve
    for i in indices(hand & only if only else hand):
        if i == seen.forbidden:
            continue
        keep = hand ^ (1 << i)
        score = after_one_draw(keep, _live(seen, keep, 1 << i), limit, w)
        if w.hold:
            score += w.hold * risk * kept[i]
        out.append((score + w.danger * danger(seen, i, keep, w.danger_base), i))
    out.sort()
    return out


def normal_discard(seen: Seen, w: Weights = WEIGHTS) -> tuple[int, bool]:
    """Knock when `should_knock` says so; else the discard whose keep looks best
    one draw ahead, danger included."""
    hand = seen.hand
    options = _discard_options(seen, hand)
    least = min(options, key=lambda i: (options[i], -VALUE[i], -i))
    if should_knock(seen, options[least], w):
        return least, True
    return ranked_discards(seen, w)[0][1], False
