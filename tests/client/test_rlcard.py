"""The RLCard encoding (`hollywood_gin.client.rlcard`): every open action of 1,000
random positions goes to its RLCard id and back, the ids mean what RLCard means by
them, and the 5 × 52 observation is RLCard's."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from hollywood_gin.bots import Bot
from hollywood_gin.bots.arena import RandomPlayer
from hollywood_gin.bots.knowledge import BotMemory, Seen
from hollywood_gin.client.rlcard import (
    GIN,
    KNOCK,
    NUM_ACTIONS,
    NotOpen,
    card_id,
    card_of,
    decode,
    encode,
    legal_ids,
    observation,
)
from hollywood_gin.engine.actions import PLAY_KINDS
from hollywood_gin.engine.cards import CARDS, Card, full_deck
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.views import View

rlcard_utils = pytest.importorskip("rlcard.games.gin_rummy.utils.utils")
action_event = pytest.importorskip("rlcard.games.gin_rummy.utils.action_event")

OPTIONS = [
    Options(r, s, 100)
    for r in ("standard", "straight", "oklahoma")
    for s in ("hand", "game", "hollywood")
]


def random_positions(n: int, seed: int = 0) -> Iterator[tuple[View, Seen]]:
    """`n` decisions of play that is random a third of the time and easy's the rest
    (so hands get organised and knocks and gins come up), every rule and scoring,
    each with the mover's memory."""
    rng = random.Random(seed)
    count = 0
    game = 0
    while count < n:
        game += 1
        deck = full_deck()
        rng.shuffle(deck)
        options = OPTIONS[game % len(OPTIONS)]
        match = Match(options, rng=random.Random(game), deck_orders=[deck])
        match.start()
        memories = [BotMemory(), BotMemory()]
        mover = RandomPlayer(rng)
        easy = [Bot("easy", random.Random(game)), Bot("easy", random.Random(game + 1))]
        for _ in range(300):
            if match.status != "playing":
                break
            views = [match.view(0), match.view(1)]
            for s in (0, 1):
                memories[s].observe(views[s])
                easy[s].observe(views[s])
            seat = 0 if views[0].legal else 1
            view = views[seat]
            seen = memories[seat].seen(view)
            assert seen is not None
            yield view, seen
            count += 1
            if count >= n:
                return
            player = mover if rng.random() < 1 / 3 else easy[seat]
            match.apply(seat, player.choose(view))


def test_card_ids_are_rlcards() -> None:
    assert sorted(card_id(c) for c in CARDS) == list(range(52))
    for card in CARDS:
        theirs = (
            rlcard_utils.card_from_text(str(card))
            if hasattr(rlcard_utils, "card_from_text")
            else None
        )
        if theirs is not None:
            assert rlcard_utils.get_card_id(theirs) == card_id(card)
        assert card_of(card_id(card)) == card
        back = rlcard_utils.get_card(card_id(card))
        assert (back.rank, back.suit) == (str(card)[0], str(card)[1])


def test_every_open_action_of_1000_random_positions_round_trips() -> None:
    actions = 0
    gins = 0
    kinds: set[str] = set()
    for view, seen in random_positions(1000):
        play = [a for a in view.legal if a.kind in PLAY_KINDS]
        for action in play:
            action_id = encode(action, view)
            assert 0 <= action_id < NUM_ACTIONS
            assert decode(action_id, view) == action
            kinds.add(action.kind)
            actions += 1
            # RLCard reads the id as the same move
            event = action_event.ActionEvent.decode_action(action_id)
            if action.kind in ("discard", "knock") and action_id != GIN:
                assert card_of(rlcard_utils.get_card_id(event.card)) == action.card
                assert type(event).__name__ == (
                    "DiscardAction" if action.kind == "discard" else "KnockAction"
                )
            elif action_id == GIN:
                assert type(event).__name__ == "GinAction"
                gins += 1
        ids = legal_ids(view)
        for action_id in ids:
            assert encode(decode(action_id, view), view) == action_id
        if play:
            assert ids
        encoded = {encode(a, view) for a in play}
        if GIN in encoded:  # the gin knock is also RLCard's knock of that card
            encoded.add(KNOCK + card_id(decode(GIN, view).card))  # type: ignore[arg-type]
        for action_id in set(range(NUM_ACTIONS)) - encoded:
            with pytest.raises(NotOpen):
                decode(action_id, view)
        obs = observation(view, seen)
        assert obs.shape == (5, 52)
        assert (obs.sum(axis=0) == 1).all()  # each card in exactly one row
        assert view.mine is not None
        assert {card_of(i) for i in np.flatnonzero(obs[0])} == {
            Card.parse(c) for c in view.mine.cards
        }
        top = view.hand.discard_top if view.hand else None
        assert [card_of(i) for i in np.flatnonzero(obs[1])] == ([Card.parse(top)] if top else [])
    assert actions > 5000
    assert kinds == set(PLAY_KINDS)
    assert gins > 0


def test_an_rlcard_agent_plays_through_the_encoding() -> None:
    from hollywood_gin.bots.arena import Seated
    from hollywood_gin.client.rlcard import random_agent

    bot = random_agent()
    seated = Seated(bot)
    deck = full_deck()
    random.Random(3).shuffle(deck)
    match = Match(Options("standard", "game", 100), rng=random.Random(3), deck_orders=[deck])
    match.start()
    other = RandomPlayer(random.Random(4))
    for _ in range(400):
        if match.status != "playing":
            break
        views = [match.view(0), match.view(1)]
        seated.observe(views[0])
        if views[0].legal:
            match.apply(0, seated.choose(views[0]))
        else:
            match.apply(1, other.choose(views[1]))
    assert bot.fallbacks == 0
