"""Bots against each other through the real engine: legal moves only, views only,
whole matches, and the hard search's simulator agreeing with the engine."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.bots import Bot, Budget, NoLegalAction, choose_action
from hollywood_gin.bots.arena import (
    HandOutcome,
    Player,
    RandomPlayer,
    TooLong,
    next_hand,
    play_hand,
)
from hollywood_gin.bots.knowledge import BotMemory
from hollywood_gin.bots.playout import World, normal_policy, play_out
from hollywood_gin.bots.search import SearchStats, hard_decide
from hollywood_gin.bots.worlds import sample_world
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import Card, full_deck
from hollywood_gin.engine.events import ActionTaken, Deal, Reshuffle
from hollywood_gin.engine.hand import knock_limit
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.moves import CardMove
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.views import View
from tests.bots.helpers import unseen_shuffled
from tests.wire import wire

RULES = ("standard", "straight", "oklahoma")
SCORINGS = ("hand", "game", "hollywood")
# small and without a clock, so the tests are deterministic and quick
QUICK = Budget(playouts=12, seconds=None, discards=2)


def play_match(
    match: Match, players: tuple[Player, Player], *, max_hands: int = 200
) -> list[HandOutcome]:
    """Play a started match until `match_over`.

    :raises TooLong: more than `max_hands` hands.
    """
    hands: list[HandOutcome] = []
    while match.status != "match_over":
        if len(hands) >= max_hands:
            raise TooLong(f"the match did not end within {max_hands} hands")
        if match.status == "hand_over":
            next_hand(match, players)
        hands.append(play_hand(match, players))
    return hands


class Checked:
    """Wraps a player: every action it returns must be an entry of `legal`."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.moves = 0

    def observe(self, view: View) -> None:
        self.inner.observe(view)

    def choose(self, view: View) -> Action:
        action = self.inner.choose(view)
        assert action in view.legal, (action, view.legal)
        self.moves += 1
        return action


def deck(seed: int) -> list[Card]:
    cards = full_deck()
    random.Random(seed).shuffle(cards)
    return cards


def bot(strength: str, seed: int) -> Bot:
    return Bot(strength, random.Random(seed), budget=QUICK)


@pytest.mark.parametrize(("rules", "scoring"), list(itertools.product(RULES, SCORINGS)))
def test_only_legal_moves_in_every_option_combination(rules: str, scoring: str) -> None:
    options = Options(rules, scoring, 100)
    pairs = [("easy", "normal"), ("normal", "hard"), ("hard", "easy")]
    for seed in range(3):
        a, b = pairs[seed]
        players = (Checked(bot(a, seed)), Checked(bot(b, seed + 100)))
        match = Match(options, rng=random.Random(seed), deck_orders=[deck(seed)])
        match.start()
        outcome = play_hand(match, players)  # Match.apply raises on anything illegal
        assert outcome.kind in ("gin", "knock", "undercut", "draw")
        assert players[0].moves + players[1].moves == outcome.actions


@pytest.mark.parametrize(("a", "b"), [("easy", "normal"), ("normal", "hard"), ("hard", "easy")])
def test_each_strength_finishes_a_whole_hollywood_match(a: str, b: str) -> None:
    match = Match(Options("standard", "hollywood", 100), rng=random.Random(7))
    match.start()
    players = (Checked(bot(a, 1)), Checked(bot(b, 2)))
    hands = play_match(match, players, max_hands=80)
    sheet = wire(match.view(0))["sheet"]
    assert match.status == "match_over"
    assert sheet["match_winner"] in (0, 1)
    assert all(game["finished"] for game in sheet["games"])
    # game 3 takes some player's third won hand, so at least three hands
    assert len(hands) >= 3


def test_easy_beats_a_random_player() -> None:
    # easy knocks as soon as it may; a random player almost never gets under 10
    wins = 0
    for seed in range(10):
        match = Match(Options(), rng=random.Random(seed), deck_orders=[deck(seed)])
        match.start()
        outcome = play_hand(match, (bot("easy", seed), RandomPlayer(random.Random(seed))))
        wins += outcome.winner == 0
    assert wins >= 9


def _replay_with_hidden_cards_moved(match: Match, seen_cards: set[str], seed: int) -> Match:
    """The same table and actions, but a deck in which every card seat 0 has not
    seen (the opponent's hidden cards, the stock) has swapped places."""
    deal = next(e for e in match.log if isinstance(e, Deal))
    original = [c.text for c in deal.deck]
    order = unseen_shuffled(original, seen_cards, seed)
    assert order != original
    other = Match(match.options, rng=random.Random(0), deck_orders=[order])
    other.start()
    return other


def _seen_by_seat0(view: View, into: set[str]) -> None:
    hand = view.hand
    assert hand is not None and view.mine is not None
    into.update(view.mine.cards)
    if hand.discard_top:
        into.add(hand.discard_top)
    if isinstance(hand.last_action, CardMove):
        into.add(hand.last_action.card)


# hard with successive halving over five candidates (three rounds) as well
WIDE = Budget(playouts=60, seconds=None, discards=3, prune=99.0)


@pytest.mark.parametrize(
    ("strength", "budget"),
    [("easy", QUICK), ("normal", QUICK), ("hard", QUICK), ("hard", WIDE)],
)
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_plays_identically_when_the_hidden_cards_differ(
    strength: str, budget: Budget, seed: int
) -> None:
    """Seat 0 is the bot. Play a hand until the opponent's first discard after
    some turns; then rebuild the same public history from a deck where every
    card seat 0 never saw has moved: seat 0's views are the same (all but
    the deck commitment), and so must be every one of its choices. Hard searches
    every decision (draws and discards too), so this covers all of its search."""
    options = Options("standard", "game", 100)
    match = Match(options, rng=random.Random(seed), deck_orders=[deck(seed)], first_dealer=1)
    match.start()
    me = Bot(strength, random.Random(99), budget=budget)
    opponent = Bot("normal", random.Random(5))
    seen: set[str] = set()
    choices: list[Action] = []
    steps = 0
    while match.status == "playing" and steps < 14:
        views = [match.view(0), match.view(1)]
        _seen_by_seat0(views[0], seen)
        me.observe(views[0])
        opponent.observe(views[1])
        seat = 0 if views[0].legal else 1
        if seat == 0:
            action = me.choose(views[0])
            choices.append(action)
        else:
            action = opponent.choose(views[1])
        if action.kind == "knock":
            break  # the result would reveal the hands
        match.apply(seat, action)
        steps += 1
    assert len(choices) >= 3
    _seen_by_seat0(match.view(0), seen)  # the card of the last action counts as seen too
    actions = [e for e in match.log if isinstance(e, ActionTaken)]
    other = _replay_with_hidden_cards_moved(match, seen, seed)
    again = Bot(strength, random.Random(99), budget=budget)
    replayed: list[Action] = []
    for event in actions:
        view = other.view(0)
        again.observe(view)
        if event.seat == 0:
            replayed.append(again.choose(view))
        other.apply(event.seat, event.action)
    # the one remaining choice, if the loop above stopped at a knock by seat 0
    if len(replayed) < len(choices):
        view = other.view(0)
        again.observe(view)
        replayed.append(again.choose(view))
    assert (
        wire(other.view(0))["hand"]["deck_commitment"]
        != wire(match.view(0))["hand"]["deck_commitment"]
    )
    assert replayed == choices


def test_choose_action_uses_the_one_view_given() -> None:
    match = Match(Options(), rng=random.Random(2), first_dealer=0)
    match.start()
    view = match.view(1)  # the non-dealer holds the upcard offer
    for strength in ("easy", "normal", "hard"):
        action = choose_action(view, strength, random.Random(1))
        assert action in view.legal
    with pytest.raises(ValueError):
        choose_action(view, "expert")
    with pytest.raises(NoLegalAction):
        choose_action(match.view(0), "normal")  # not seat 0's turn


def test_hand_over_and_match_over_answers_are_the_legal_ones() -> None:
    match = Match(Options(), rng=random.Random(4), deck_orders=[deck(4)])
    match.start()
    players = (bot("normal", 1), bot("normal", 2))
    play_hand(match, players)
    assert match.status == "match_over"  # `hand` scoring: one hand is the game
    for seat in (0, 1):
        assert players[seat].choose(match.view(seat)) == Action.of("new_match")


def test_hard_search_stops_at_its_safety_cap() -> None:
    """A fake clock that moves 0.2 s per reading: a 0.5 s cap stops the search
    after a few playouts, never the 400 of the budget, and says so. (A quiet
    machine never reaches the real cap: the budget is the count of playouts.)"""
    ticks = itertools.count()
    clock = lambda: next(ticks) * 0.2  # noqa: E731
    hard = Bot("hard", random.Random(1), budget=Budget(playouts=400, seconds=0.5), clock=clock)
    match = Match(Options(), rng=random.Random(8), deck_orders=[deck(8)], first_dealer=0)
    match.start()
    while match.status == "playing":
        seat = 0 if match.legal(0) else 1
        view = match.view(seat)
        action = hard.choose(view) if seat == 1 else choose_action(view, "easy")
        if seat == 1 and hard.last_search.candidates > 1:
            assert hard.last_search.capped
            assert 1 <= hard.last_search.playouts <= 3 * hard.last_search.candidates
            return
        match.apply(seat, action)
    pytest.fail("the hand ended before the hard bot had a real choice")


def test_hard_safety_cap_counts_from_the_start_of_the_move() -> None:
    """Time spent before the search (the bot's memory, normal's ranking, waiting
    for the CPU) counts against the cap: a move that began a second ago has used
    up a 0.3 s cap, so the search stops after its first world; the clock stands
    still, so counted from the search alone it would play all 400."""
    budget = Budget(playouts=400, seconds=0.3)
    hard = Bot("hard", random.Random(1), budget=QUICK)
    match = Match(Options(), rng=random.Random(8), deck_orders=[deck(8)], first_dealer=0)
    match.start()
    while match.status == "playing":
        seat = 0 if match.legal(0) else 1
        view = match.view(seat)
        if seat == 1:
            hard.observe(view)
            action = hard.choose(view)
            if hard.last_search.candidates > 1:
                seen = hard.memory.seen(view)
                assert seen is not None
                kinds: set[str] = {a.kind for a in view.legal}
                stats = SearchStats()
                hard_decide(
                    seen, kinds, random.Random(2), budget=budget,
                    clock=lambda: 101.0, stats=stats, start=100.0,
                )  # fmt: skip
                assert stats.capped and stats.worlds == 1
                assert stats.playouts == stats.candidates
                return
        else:
            action = choose_action(view, "easy")
        match.apply(seat, action)
    pytest.fail("the hand ended before the hard bot had a real choice")


def test_the_simulator_agrees_with_the_engine() -> None:
    """The same deals played by the normal policy in the hard search's simulator
    and through `Match`: the same winner, points and kind, hand after hand.
    A `hand`-scoring hand that reshuffles the pile is left out: the new stock's
    order comes from the engine's rng there and from the simulator's here."""
    policy = normal_policy()
    compared = 0
    for seed, scoring in zip(range(24), itertools.cycle(SCORINGS), strict=False):
        order = deck(seed)
        idx = [c.index for c in order]
        hands = [0, 0]
        for p in range(20):
            hands[1 if p % 2 == 0 else 0] |= 1 << idx[p]  # dealer 0: seat 1 gets the even ones
        world = World(
            hands=hands,
            stock=list(reversed(idx[21:])),
            pile=[idx[20]],
            turn=1,
            dealer=0,
            phase="upcard_offer",
            knock_limit=knock_limit("standard", order[20]),
            wall=scoring != "hand",
            reshuffle=scoring == "hand",
        )
        sim = play_out(world, (policy, policy), random.Random(seed))
        match = Match(
            Options("standard", scoring, 100),
            rng=random.Random(seed),
            deck_orders=[order],
            first_dealer=0,
        )
        match.start()
        outcome = play_hand(match, (Bot("normal"), Bot("normal")))
        if any(isinstance(event, Reshuffle) for event in match.log):
            continue
        compared += 1
        if outcome.kind == "draw" or outcome.winner is None:
            assert sim.winner is None
        else:
            assert (sim.winner, sim.points) == (outcome.winner, outcome.points)
    assert compared >= 20


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    moves=st.integers(0, 40),
    strength=st.sampled_from(["easy", "normal", "hard"]),
    rules=st.sampled_from(RULES),
    scoring=st.sampled_from(SCORINGS),
)
def test_any_reachable_position_gets_a_legal_answer(
    seed: int, moves: int, strength: str, rules: str, scoring: str
) -> None:
    """Random legal play for a while, then ask a fresh bot (one view only)."""
    rng = random.Random(seed)
    match = Match(Options(rules, scoring, 100), rng=rng)
    match.start()
    for _ in range(moves):
        if match.status != "playing":
            break
        seat = 0 if match.legal(0) else 1
        match.apply(seat, rng.choice(match.legal(seat)))
    for seat in (0, 1):
        view = match.view(seat)
        if view.legal:
            action = Bot(strength, random.Random(seed), budget=QUICK).choose(view)
            assert action in view.legal
            match.apply(seat, action)  # and the engine accepts it


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 30))
def test_sampled_deals_agree_with_everything_seen(seed: int, moves: int) -> None:
    """The hard search's deals: my cards as they are, the opponent holding what it
    took from the pile and as many cards as it has, the known pile on top, the
    stock as long as it is, and every card exactly once."""
    rng = random.Random(seed)
    match = Match(Options("standard", "game", 100), rng=rng)
    match.start()
    memory = BotMemory()
    memory.observe(match.view(0))
    for _ in range(moves):
        if match.status != "playing":
            break
        seat = 0 if match.legal(0) else 1
        match.apply(seat, rng.choice(match.legal(seat)))
        memory.observe(match.view(0))
    if match.status != "playing":
        return
    view = match.view(0)
    seen = memory.seen(view)
    assert seen is not None
    world = sample_world(seen, random.Random(seed))
    assert world is not None
    hand = wire(view)["hand"]
    assert world.hands[0] == seen.hand
    assert world.hands[1] & seen.opp_has == seen.opp_has
    assert world.hands[1].bit_count() == hand["opponent_card_count"]
    assert len(world.stock) == hand["stock_count"]
    assert len(world.pile) == hand["discard_count"]
    assert world.pile[len(world.pile) - len(seen.pile) :] == list(seen.pile)
    everything = world.hands[0] | world.hands[1]
    for i in world.stock + world.pile:
        assert not everything >> i & 1
        everything |= 1 << i
    assert everything == (1 << 52) - 1
