"""OpenSpiel's gin-rummy bots on this server (`pip install 'hollywood-gin[bots]'`).

`OpenSpielBot(make)` is a client bot (`choose(view, legal)`) that asks a `pyspiel`
bot for every decision: from the seat's view alone it builds an OpenSpiel
`gin_rummy` state that the OpenSpiel player sees exactly as this seat sees the
hand, lets the bot `step` it, and maps the answer back to one of `legal`.

What the built state holds (docs/bots.md "OpenSpiel" has the rule differences):

- the seat's own cards, the discard pile's cards (known from the views: each
  discard and each take is public) with its top card as OpenSpiel's upcard, the
  stock's size, the knock limit of the hand (OpenSpiel's `knock_card`), whose
  turn it is and the phase (first upcard, draw, discard; a card just taken from
  the pile is OpenSpiel's `prev_upcard`, so it cannot be thrown back);
- the cards the opponent took from the pile and still holds, in its hand;
- everything this seat cannot know (the rest of the opponent's hand, the stock's
  order, pile cards from before a gap in the views) drawn at random from the
  cards it has not seen. The views never carry those cards, so they cannot leak:
  the same view gives the same state whatever the hidden cards really are.

OpenSpiel plays the hand through a made-up history that leads there (a deal,
the first upcard taken and thrown back, turns that draw a card from the stock and
throw it): its observation of the seat is the one described above; its history
is not the real one, which matters only to bots that read the history or
resample from it (`ismcts` below: it does not know which pile cards the opponent
took, so its samples may put them elsewhere).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pyspiel

from hollywood_gin.bots.knowledge import BotMemory, Seen
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import CARDS, Card
from hollywood_gin.engine.melds import discard_deadwoods, is_meld
from hollywood_gin.engine.views import View

DRAW_UPCARD = 52
DRAW_STOCK = 53
PASS = 54
KNOCK = 55
MELD_BASE = 56
WALL = 2  # OpenSpiel's stock size at which only a knock or a pass remain

# OpenSpiel numbers cards suit by suit, spades clubs diamonds hearts, ace to king.
_SUIT = {"S": 0, "C": 1, "D": 2, "H": 3}
_UTILS = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
_MELDS: dict[int, list[int]] = dict(_UTILS.int_to_meld)


def to_openspiel(card: Card) -> int:
    return _SUIT[card.suit] * 13 + card.rank - 1


_FROM = {to_openspiel(c): c for c in CARDS}


def from_openspiel(card: int) -> Card:
    return _FROM[card]


MakeBot = Callable[[Any, int], Any]
"""Makes a pyspiel bot for a game (its parameters carry the knock card) and a player."""


def simple_bot(game: Any, player: int) -> Any:
    """OpenSpiel's `SimpleGinRummyBot` (draws what melds, throws its highest deadwood,
    knocks as soon as it may, never lays off)."""
    return pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)


class Unreachable(ValueError):
    """The view shows a position this adapter cannot rebuild in OpenSpiel."""


def build_state(
    view: View, seen: Seen, game: Any, rng: random.Random
) -> tuple[Any, int, int | None]:
    """An OpenSpiel state in which the player to move sees what this seat sees.

    Returns (state, OpenSpiel player of this seat, the card drawn from the stock in
    a discard phase or None). Reads `view` and `seen` only (what the seat was sent).

    :raises Unreachable: a position OpenSpiel cannot hold (not this seat's turn).
    """
    hand = view.hand
    if hand is None or view.mine is None or view.you is None or hand.turn != view.you:
        raise Unreachable("not this seat's turn in a hand")
    me = 0 if view.you == 1 - hand.dealer else 1  # OpenSpiel's player 0 is the non-dealer
    mine = [to_openspiel(Card.parse(c)) for c in view.mine.cards]
    known_pile = [to_openspiel(CARDS[i]) for i in seen.pile]
    opp_has = [to_openspiel(c) for c in CARDS if seen.opp_has >> c.index & 1]
    phase = hand.phase
    kinds = {a.kind for a in view.legal}

    drawn: int | None = None
    took: int | None = None
    if phase == "discard":
        if seen.forbidden >= 0:
            took = to_openspiel(CARDS[seen.forbidden])
        else:
            drawn = rng.choice(mine)  # which card came from the stock makes no difference
    held = [c for c in mine if c not in (took, drawn)]  # the seat's cards before its draw
    pile = known_pile + ([took] if took is not None else [])

    taken = set(mine) | set(pile) | set(opp_has)
    unseen = [c for c in range(52) if c not in taken]
    rng.shuffle(unseen)
    # Pile cards from before a gap in the views: unknown, drawn from the unseen.
    missing = seen.pile_count - len(known_pile)
    if missing > 0:
        pile = [unseen.pop() for _ in range(missing)] + pile
    if not pile:
        raise Unreachable("an empty discard pile")
    # The opponent: what it took from the pile, the rest at random.
    opp = opp_has + [unseen.pop() for _ in range(10 - len(opp_has))]
    # OpenSpiel stops drawing at two stock cards (its wall); `hand` scoring here turns
    # the pile into a new stock instead. Keep three or more in OpenSpiel's stock by
    # moving the pile's lowest cards into it (they are then out of its view).
    stock = 52 - 20 - len(pile)
    while stock < WALL + 1 and len(pile) > 1:
        unseen.append(pile.pop(0))
        stock += 1

    state = game.new_initial_state()

    def deal(p0: list[int], p1: list[int], up: int) -> None:
        for card in [*p0, *p1, up]:
            state.apply_action(card)

    def hands(mine_: list[int], opp_: list[int]) -> tuple[list[int], list[int]]:
        return (mine_, opp_) if me == 0 else (opp_, mine_)

    if phase == "upcard_offer":
        deal(*hands(held, opp), pile[-1])
        if me == 1:
            state.apply_action(PASS)  # the non-dealer passed before the dealer's offer
    else:
        turns = len(pile) - 1  # each later turn draws a stock card and throws it
        if "draw_discard" not in kinds and phase == "draw":
            # Both passed the first upcard: the non-dealer draws from the stock.
            if me != 0 or turns:
                raise Unreachable("a forced stock draw that is not the first one")
            deal(*hands(held, opp), pile[0])
            state.apply_action(PASS)
            state.apply_action(PASS)
        else:
            # The first upcard (the pile's bottom card) is taken and thrown back at once
            # by player 0 (then player 1 moves) or by player 1 after a pass (then player
            # 0 moves): choose so that `turns` later turns end with us to move. Nobody's
            # hand changes, and no card is made out to be known that was not.
            taker = 0 if (1 + turns) % 2 == me else 1
            deal(*hands(held, opp), pile[0])
            if taker == 1:
                state.apply_action(PASS)
            state.apply_action(DRAW_UPCARD)
            state.apply_action(pile[0])
            for card in pile[1:]:
                state.apply_action(DRAW_STOCK)
                state.apply_action(card)  # the chance outcome: this card
                state.apply_action(card)  # and thrown at once
        if phase == "discard":
            if took is not None:
                state.apply_action(DRAW_UPCARD)
            else:
                assert drawn is not None
                state.apply_action(DRAW_STOCK)
                state.apply_action(drawn)
    if state.current_player() != me:
        raise Unreachable("the rebuilt state is not this seat's turn")
    return state, me, drawn


class OpenSpielBot:
    """A client bot that plays a `pyspiel` gin-rummy bot.

    :param make: makes the pyspiel bot for a game and a player (default: OpenSpiel's
        `SimpleGinRummyBot`); one per knock card and player, asked afresh (`restart`)
        at every decision.
    :param rng: the randomness of the cards this seat has not seen.

    `decisions` counts the decisions asked; `adjusted` the discards of the card just
    taken from the pile (OpenSpiel allows it, this server does not: the allowed
    discard leaving the least deadwood is played); `fallbacks` answers that did not
    map to an open action otherwise (then the first open action of the same kind,
    else the first open one; never seen in the tests).
    """

    def __init__(self, make: MakeBot = simple_bot, rng: random.Random | None = None) -> None:
        self.make = make
        self.rng = rng or random.Random()
        self.memory = BotMemory()
        self._games: dict[int, Any] = {}
        self._bots: dict[tuple[int, int], Any] = {}
        self.decisions = 0
        self.fallbacks = 0
        self.adjusted = 0

    def observe(self, view: View) -> None:
        self.memory.observe(view)

    def _game(self, knock_card: int) -> Any:
        if knock_card not in self._games:
            self._games[knock_card] = pyspiel.load_game("gin_rummy", {"knock_card": knock_card})
        return self._games[knock_card]

    def _bot(self, knock_card: int, player: int) -> Any:
        key = (knock_card, player)
        if key not in self._bots:
            self._bots[key] = self.make(self._game(knock_card), player)
        return self._bots[key]

    def choose(self, view: View, legal: tuple[Action, ...]) -> Action:
        self.decisions += 1
        self.memory.observe(view)
        seen = self.memory.seen(view)
        if seen is None or view.hand is None:
            return self._fallback(legal, None)
        knock_card = view.hand.knock_limit
        try:
            state, me, _ = build_state(view, seen, self._game(knock_card), self.rng)
        except Unreachable:
            return self._fallback(legal, None)
        bot = self._bot(knock_card, me)
        bot.restart()
        try:
            answer = bot.step(state)
            action = self._to_action(answer, state, bot, view.hand.phase)
        except (RuntimeError, ValueError, KeyError):  # a pyspiel error, a bad answer
            return self._fallback(legal, None)
        return self._checked(action, legal, knock_card, view.mine.cards if view.mine else ())

    def _to_action(self, answer: int, state: Any, bot: Any, phase: str) -> Action:
        if phase == "upcard_offer":
            return Action.of("take_upcard" if answer == DRAW_UPCARD else "pass")
        if phase == "draw":
            return Action.of("draw_discard" if answer == DRAW_UPCARD else "draw_stock")
        if answer != KNOCK:
            return Action.of("discard", from_openspiel(answer))
        # OpenSpiel knocks in steps: the knock, the discard, each meld, a pass.
        state.apply_action(KNOCK)
        discard: Card | None = None
        melds: list[tuple[Card, ...]] = []
        for _ in range(20):
            step = bot.step(state)
            state.apply_action(step)
            if step < 52:
                discard = from_openspiel(step)
            elif step >= MELD_BASE:
                melds.append(tuple(from_openspiel(c) for c in _MELDS[step - MELD_BASE]))
            elif step == PASS:
                break
        if discard is None:
            raise ValueError("the knock named no discard")
        return Action("knock", discard, tuple(melds))

    def _checked(
        self, action: Action, legal: tuple[Action, ...], limit: int, cards: Sequence[str]
    ) -> Action:
        if action.kind == "knock" and action.card is not None:
            plain = Action.of("knock", action.card)
            if plain not in legal:
                return self._fallback(legal, "knock")
            if _laid_out_within(action, limit, cards):
                return action
            return plain  # melds this server would refuse: let it lay the least deadwood
        if action in legal:
            return action
        if action.kind == "discard" and action.card is not None and cards:
            # OpenSpiel lets a player throw back the card it just took from the pile;
            # here it may not: the allowed discard that leaves the least deadwood.
            self.adjusted += 1
            return _least_deadwood_discard(legal, cards)
        return self._fallback(legal, action.kind)

    def _fallback(self, legal: tuple[Action, ...], kind: str | None) -> Action:
        self.fallbacks += 1
        same = [a for a in legal if a.kind == kind]
        return same[0] if same else legal[0]

    def hand_over(self, view: View) -> None:
        for bot in self._bots.values():
            bot.restart()


def _laid_out_within(action: Action, limit: int, cards: Sequence[str]) -> bool:
    """The knock's own melds are melds of its ten cards, each card once, leaving
    deadwood within the limit (what the server would accept)."""
    assert action.melds is not None and action.card is not None
    ten = [Card.parse(c) for c in cards if c != str(action.card)]
    used = [c for meld in action.melds for c in meld]
    if len(used) != len(set(used)) or not set(used) <= set(ten):
        return False
    if not all(is_meld(list(m)) for m in action.melds):
        return False
    return sum(c.value for c in ten if c not in used) <= limit


def ismcts_bot(simulations: int = 200, seconds: float = 1.0) -> MakeBot:
    """OpenSpiel's information-set MCTS (`ISMCTSBot`, random rollouts) over
    `ResampleFromInfostate` of the built state, at most `simulations` a move and
    `seconds` of thinking."""

    def make(game: Any, player: int) -> Any:
        evaluator = pyspiel.RandomRolloutEvaluator(1, 7 + player)
        return pyspiel.ISMCTSBot(
            7 + player,
            evaluator,
            2.0,
            simulations,
            -1,
            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            False,
            True,
            seconds,
        )

    return make


def ismcts(rng: random.Random | None = None) -> OpenSpielBot:
    """`openspiel:ismcts`: OpenSpiel's ISMCTS (200 simulations, at most 1 s a move)."""
    return OpenSpielBot(ismcts_bot(), rng)


def _least_deadwood_discard(legal: tuple[Action, ...], cards: Sequence[str]) -> Action:
    hand = [Card.parse(c) for c in cards]
    discards = [a for a in legal if a.kind == "discard" and a.card is not None]
    left = discard_deadwoods(hand)
    return min(discards, key=lambda a: (left[a.card], -a.card.value) if a.card else (0, 0))


def simple(rng: random.Random | None = None) -> OpenSpielBot:
    """`openspiel:simple`: OpenSpiel's `SimpleGinRummyBot` through the adapter."""
    return OpenSpielBot(simple_bot, rng)
