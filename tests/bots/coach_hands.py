"""Hands built for the coach's tests: a deck order and a script of actions.

Seat 0 deals, so seat 1 (the non-dealer) acts first; the deck gives seat 1 the
even positions 0-18 and seat 0 the odd ones, the upcard is card 20 and the stock
is drawn from card 21 on (docs/rules.md "The deal"). Every record here is played through the
engine (`finished_record`), so it is a hand the server could have recorded.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from hollywood_gin.bots import Bot
from hollywood_gin.bots.coach import (
    CoachPolicy,
    Point,
    Tally,
    assemble,
    entry,
    replay,
    seed_of,
    step,
)
from hollywood_gin.bots.ladder import BY_ID, LadderBot
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.cards import full_deck
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options

ALL = [str(c) for c in full_deck()]
# Dealt to seat 0 in the hands where it goes gin at its first turn (deadwood 0).
GIN_DEALER = ["AS", "2S", "3S", "4S", "6H", "7H", "8H", "JC", "JD", "JH"]


def deck(seat1: list[str], seat0: list[str], upcard: str, stock: list[str]) -> list[str]:
    """A deck order: these hands, this upcard, the stock drawn in this order, the rest
    after it in the order of a fresh deck."""
    used = [*seat1, *seat0, upcard, *stock]
    assert len(seat1) == len(seat0) == 10 and len(set(used)) == len(used), used
    out: list[str] = []
    for a, b in zip(seat1, seat0, strict=True):
        out += [a, b]
    return [*out, upcard, *stock, *[c for c in ALL if c not in used]]


def finished_record(cards: list[str], script: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The hand record (as `GET /api/tables/{id}/hands/1` answers) of this script."""
    match = Match(Options(), rng=random.Random(7), deck_orders=[cards], first_dealer=0)
    match.start()
    for seat, action in script:
        match.apply(seat, parse_action(action))
    record = match.hand_record(1)
    assert record is not None, "the script does not finish the hand"
    return record


def pass_both() -> list[tuple[int, dict[str, Any]]]:
    return [(1, {"kind": "pass"}), (0, {"kind": "pass"}), (1, {"kind": "draw_stock"})]


def dealer_gins(card: str) -> list[tuple[int, dict[str, Any]]]:
    """Seat 0 draws `card` from the stock and goes gin throwing it."""
    return [(0, {"kind": "draw_stock"}), (0, {"kind": "knock", "discard": card})]


# 1. Seat 1 holds three melds and a lone king, draws the ace of clubs and throws the
# three of hearts out of its run instead of the king (which would leave 1 deadwood).
MELD_BREAK = finished_record(
    deck(
        ["2H", "3H", "4H", "9S", "9D", "9C", "5C", "6C", "7C", "KS"],
        GIN_DEALER,
        "QH",
        ["AC", "TD"],
    ),
    [*pass_both(), (1, {"kind": "discard", "card": "3H"}), *dealer_gins("TD")],
)

# 2. The same deal played soundly: seat 1 throws the king and knocks with 1.
MELD_KEPT = finished_record(
    deck(
        ["2H", "3H", "4H", "9S", "9D", "9C", "5C", "6C", "7C", "KS"],
        GIN_DEALER,
        "QH",
        ["AC", "TD"],
    ),
    [*pass_both(), (1, {"kind": "knock", "discard": "KS"})],
)

# 3. Seat 1 passes the 8 of clubs, which completes 5C-8C and leaves the JD alone: gin.
GIN_PASSED = finished_record(
    deck(
        ["2H", "3H", "4H", "9S", "9D", "9C", "5C", "6C", "7C", "JD"],
        ["AS", "2S", "3S", "4S", "6H", "7H", "8H", "JC", "QD", "KD"],
        "8C",
        ["KH", "QC"],
    ),
    [
        *pass_both(),
        (1, {"kind": "discard", "card": "KH"}),
        (0, {"kind": "draw_stock"}),
        (0, {"kind": "discard", "card": "QC"}),
        (1, {"kind": "draw_stock"}),
        (1, {"kind": "knock", "discard": "JD"}),
    ],
)

# 4. The same offer taken: gin at once.
GIN_TAKEN = finished_record(
    deck(
        ["2H", "3H", "4H", "9S", "9D", "9C", "5C", "6C", "7C", "JD"],
        ["AS", "2S", "3S", "4S", "6H", "7H", "8H", "JC", "QD", "KD"],
        "8C",
        ["KH", "QC"],
    ),
    [(1, {"kind": "take_upcard"}), (1, {"kind": "knock", "discard": "JD"})],
)

# 5. Seat 1 throws its low melds one by one and seat 0 takes each of them from the
# pile (so seat 1 knows nine of its ten cards, three melds), while seat 1 draws three
# melds of high cards. Then seat 1 knocks with the lone KH (deadwood 10): the
# opponent's one unknown card is worth at most 10, so this is an undercut whatever
# it is.
GIFTS = ["AS", "2S", "3S", "4D", "5D", "6D", "7H", "8H", "9H"]
HIGH = ["JD", "QD", "KD", "JS", "QS", "KS", "TC", "JC", "QC"]
JUNK = ["8C", "9D", "TD", "8S", "9S", "TS", "6C", "7C", "6S", "7S"]


def _undercut_script() -> list[tuple[int, dict[str, Any]]]:
    script = pass_both()
    for k, gift in enumerate(GIFTS):
        script += [
            (1, {"kind": "discard", "card": gift}),
            (0, {"kind": "draw_discard"}),
            (0, {"kind": "discard", "card": JUNK[k]}),
            (1, {"kind": "draw_stock"}),
        ]
    script.append((1, {"kind": "knock", "discard": "5C"}))
    return script


UNDERCUT = finished_record(
    deck([*GIFTS, "KH"], JUNK, "2C", [*HIGH, "5C"]),
    _undercut_script(),
)


def judge(
    point: Point, seed: int, budget: CoachPolicy, counts: dict[str, int] | None = None
) -> dict[str, Any]:
    """One decision's entry of the review in one go, its batches of playouts (`step`)
    one after the other (`seed`: `seed_of` the record, seat, index);
    `counts["playouts"]` grows by the playouts it took (benchmarks/bench_review.py)."""
    tally = Tally(seed=seed)
    while not tally.finished:
        step(point, tally, budget)
    if counts is not None:
        counts["playouts"] = counts.get("playouts", 0) + tally.playouts()
    return entry(point, tally)


def review_hand(
    record: Mapping[str, Any], seat: int, budget: CoachPolicy | None = None
) -> dict[str, Any]:
    """The review of `seat`'s decisions in the finished hand `record`, in one go: what
    the server computes with `replay`, each `step` and `assemble` as separate jobs of
    its worker pool (`hollywood_gin.tables.reviews`).

    :raises RuleError: the record cannot be replayed from its start.
    """
    budget = budget if budget is not None else CoachPolicy()
    played = replay(record, seat)
    decisions = [judge(p, seed_of(record, seat, p.index), budget) for p in played.points]
    return assemble(record, seat, played, decisions, budget)


def ladder_hand(who: str, seed: int) -> tuple[dict[str, Any], int, dict[int, str]]:
    """One seeded hand of ladder rung `who` against normal (benchmarks/bench_mistakes.py):
    its record, the rung's seat and, by record index, the decisions where it slipped
    (the slip's kind, `LadderBot.slipped`)."""
    seat = seed % 2
    match = Match(Options(), rng=random.Random(seed), first_dealer=seed // 2 % 2)
    match.start()
    low = LadderBot(BY_ID[who], random.Random(seed * 2))
    bots: list[Bot] = [Bot("normal", random.Random(seed * 2 + 1))] * 2
    bots[seat] = low
    slips: dict[int, str] = {}
    index = 0
    while match.status == "playing":
        for s in (0, 1):
            bots[s].observe(match.view(s))
        mover = next(s for s in (0, 1) if match.legal(s))
        before = len(low.slipped)
        match.apply(mover, bots[mover].choose(match.view(mover)))
        if mover == seat and len(low.slipped) > before:
            slips[index] = low.slipped[-1][0]
        index += 1
    record = match.hand_record(1)
    assert record is not None
    return record, seat, slips
