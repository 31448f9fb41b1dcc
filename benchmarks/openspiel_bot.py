"""OpenSpiel's `SimpleGinRummyBot` as an opponent at our table (`bench_bots.py --pool`).

The bot (C++, from the `open_spiel` package: `pip install -e '.[bench]'`) decides
from OpenSpiel's gin_rummy state, reading only its own player's observation
tensor (its hand, the upcard, the discard pile, the stock size, the opponent's
laid melds). Our engine referees the hand: a shadow OpenSpiel state is fed the
same deal and every move of our `Match` (`bind` gives the adapter the match so
it can replay the deal and the stock draws into the shadow; the bot itself sees
only its observation), the bot's answer is turned into our action, and the
points are our engine's.

What the bot does (open_spiel/bots/gin_rummy/simple_gin_rummy_bot.cc): takes the
upcard when it allows a knock or falls into a best meld; throws its highest
deadwood card; knocks as soon as it may.

Only walled scorings (`game`, `hollywood`: OpenSpiel's wall, no reshuffle of the
pile) and standard or straight rules (a fixed knock card) are supported. Where
our rules refuse the bot's move (it may throw the card it just took from the
pile, which our rules forbid; its 11-card deadwood shortcut can call a knock that
our exact count refuses), it plays the nearest legal move in its spirit (the
next-highest deadwood card; a plain discard) and counts it in `overrides`.
"""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import arrange_mask, deadwood_mask
from hollywood_gin.engine.views import View

# OpenSpiel's suits are s c d h (card = suit * 13 + rank - 1); ours are C D H S.
_SUIT = {"C": 1, "D": 2, "H": 3, "S": 0}
DRAW_UPCARD = 52
DRAW_STOCK = 53
PASS = 54
KNOCK = 55


def to_os(card: Card) -> int:
    return _SUIT[card.suit] * 13 + card.rank - 1


_OURS = {v: k for k, v in _SUIT.items()}


def from_os(n: int) -> Card:
    return Card("CDHS".index(_OURS[n // 13]) * 13 + n % 13)


class OpenSpielSimple:
    """A seat played by OpenSpiel's SimpleGinRummyBot (see the module text)."""

    overrides = 0  # moves our rules refused and the adapter replaced (all instances)

    def __init__(self, rng: random.Random | None = None) -> None:
        self.match: Match | None = None
        self._game: Any = None
        self._state: Any = None
        self._bots: list[Any] = []
        self._hand_id: int | None = None
        self._done = 0  # events of the hand replayed into the shadow
        self._stock: list[Card] = []  # the stock at the deal, top last
        self._drawn = 0

    def bind(self, match: Match) -> None:
        """The match this seat plays in (for the shadow state's deal and draws)."""
        self.match = match
        self._hand_id = None

    def _os_player(self, seat: int) -> int:
        assert self.match is not None and self.match.hand is not None
        return 0 if seat != self.match.hand.dealer else 1  # OpenSpiel's player 0 acts first

    def _start_hand(self) -> None:
        assert self.match is not None
        hand = self.match.hand
        assert hand is not None
        if not hand.wall:
            raise ValueError("OpenSpielSimple plays only walled scorings (game, hollywood)")
        self._game = pyspiel.load_game("gin_rummy", {"knock_card": hand.knock_limit})
        state = self._game.new_initial_state()
        deck = hand.deck
        for card in deck[0:20:2]:  # our non-dealer's cards: OpenSpiel's player 0
            state.apply_action(to_os(card))
        for card in deck[1:20:2]:
            state.apply_action(to_os(card))
        state.apply_action(to_os(deck[20]))
        self._state = state
        self._stock = [deck[k] for k in range(51, 20, -1)]  # top last
        self._drawn = 0
        self._done = 0
        params = self._game.get_parameters()
        self._bots = [pyspiel.make_simple_gin_rummy_bot(params, p) for p in (0, 1)]
        self._hand_id = id(hand)

    def _sync(self) -> None:
        """Replay the hand's moves since the last look into the shadow state."""
        assert self.match is not None
        hand = self.match.hand
        assert hand is not None
        if self._hand_id != id(hand):
            self._start_hand()
        state = self._state
        for move in hand.events[self._done :]:
            kind = move.kind
            if kind in ("take_upcard", "draw_discard"):
                state.apply_action(DRAW_UPCARD)
            elif kind == "pass":
                state.apply_action(PASS)
            elif kind == "draw_stock":
                state.apply_action(DRAW_STOCK)
                state.apply_action(to_os(self._stock[-1 - self._drawn]))
                self._drawn += 1
            elif kind == "discard":
                state.apply_action(to_os(Card.parse(move.card)))  # type: ignore[attr-defined]
            else:  # knock: the hand is over
                pass
        self._done = len(hand.events)

    def observe(self, view: View) -> None:
        return None

    def choose(self, view: View) -> Action:
        legal = view.legal
        kinds = {a.kind for a in legal}
        if len(legal) == 1 or not kinds & {
            "take_upcard",
            "pass",
            "draw_discard",
            "draw_stock",
            "discard",
            "knock",
        }:
            return legal[0]
        assert self.match is not None and view.you is not None
        self._sync()
        player = self._os_player(view.you)
        state = self._state
        assert state.current_player() == player, (state.current_player(), player)
        bot = self._bots[player]
        a = bot.step(state)
        if a == DRAW_UPCARD:
            return next(x for x in legal if x.kind in ("take_upcard", "draw_discard"))
        if a == PASS:
            return next(x for x in legal if x.kind == "pass")
        if a == DRAW_STOCK:
            return next(x for x in legal if x.kind == "draw_stock")
        if a == KNOCK:
            child = state.clone()
            child.apply_action(KNOCK)
            card = from_os(bot.step(child))
            bot.restart()
            for x in legal:
                if x.kind == "knock" and x.card == card:
                    return x
            OpenSpielSimple.overrides += 1
            knocks = [x for x in legal if x.kind == "knock"]
            if knocks:
                return knocks[0]
            return self._plain(view, legal)
        card = from_os(a)
        for x in legal:
            if x.kind == "discard" and x.card == card:
                return x
        OpenSpielSimple.overrides += 1
        return self._plain(view, legal)

    @staticmethod
    def _plain(view: View, legal: tuple[Action, ...]) -> Action:
        """The highest deadwood card among the legal plain discards (its rule)."""
        assert view.mine is not None
        mask = sum(Card.parse(c).bit for c in view.mine.cards)
        _, _, dead = arrange_mask(mask)
        discards = [x for x in legal if x.kind == "discard" and x.card is not None]

        def key(x: Action) -> tuple[int, int, int]:
            assert x.card is not None
            return (bool(dead & x.card.bit), x.card.rank, -deadwood_mask(mask & ~x.card.bit))

        return max(discards, key=key)
