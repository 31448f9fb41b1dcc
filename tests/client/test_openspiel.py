"""The OpenSpiel adapter: the state it builds shows OpenSpiel's player exactly what the
seat sees (and nothing it does not), its actions map both ways, and OpenSpiel's
SimpleGinRummyBot plays 20 hands on a real server with no illegal action."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pyspiel = pytest.importorskip("pyspiel")

from hollywood_gin.bots import Bot  # noqa: E402
from hollywood_gin.bots.knowledge import BotMemory  # noqa: E402
from hollywood_gin.client import play_async  # noqa: E402
from hollywood_gin.client.openspiel import (  # noqa: E402
    DRAW_STOCK,
    DRAW_UPCARD,
    KNOCK,
    PASS,
    OpenSpielBot,
    build_state,
    from_openspiel,
    simple,
    to_openspiel,
)
from hollywood_gin.engine.cards import CARDS, Card, full_deck  # noqa: E402
from hollywood_gin.engine.events import ActionTaken  # noqa: E402
from hollywood_gin.engine.match import Match  # noqa: E402
from hollywood_gin.engine.options import Options  # noqa: E402
from hollywood_gin.engine.views import View  # noqa: E402
from tests.bots.test_bots_play import _replay_with_hidden_cards_moved, _seen_by_seat0  # noqa: E402
from tests.conftest import running_server  # noqa: E402


def test_cards_map_both_ways() -> None:
    assert sorted(to_openspiel(c) for c in CARDS) == list(range(52))
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    for card in CARDS:
        assert from_openspiel(to_openspiel(card)) == card
        # OpenSpiel's own name of the card: rank then suit in lower case
        assert (
            utils.card_string(to_openspiel(card))
            == f"{'A23456789TJQK'[card.rank - 1]}{card.suit.lower()}"
        )


def positions(
    seed: int, rules: str = "standard", scoring: str = "hand"
) -> Iterator[tuple[View, BotMemory]]:
    """Every decision of a hand between two normal bots, with the mover's memory."""
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    match = Match(Options(rules, scoring, 100), rng=random.Random(seed), deck_orders=[deck])
    match.start()
    bots = [Bot("normal", random.Random(seed + s)) for s in (0, 1)]
    memories = [BotMemory(), BotMemory()]
    steps = 0
    while match.status == "playing" and steps < 400:
        views = [match.view(0), match.view(1)]
        for s in (0, 1):
            bots[s].observe(views[s])
            memories[s].observe(views[s])
        seat = 0 if views[0].legal else 1
        yield views[seat], memories[seat]
        match.apply(seat, bots[seat].choose(views[seat]))
        steps += 1


def expected_openspiel_legal(view: View) -> set[int]:
    """OpenSpiel's legal actions that mean this view's legal ones."""
    out: set[int] = set()
    for a in view.legal:
        if a.kind == "take_upcard" or a.kind == "draw_discard":
            out.add(DRAW_UPCARD)
        elif a.kind == "pass":
            out.add(PASS)
        elif a.kind == "draw_stock":
            out.add(DRAW_STOCK)
        elif a.kind == "discard":
            assert a.card is not None
            out.add(to_openspiel(a.card))
        elif a.kind == "knock":
            out.add(KNOCK)
    return out


@pytest.mark.parametrize(
    ("rules", "scoring"), [("standard", "hand"), ("oklahoma", "game"), ("straight", "hollywood")]
)
def test_the_built_state_shows_what_the_seat_sees(rules: str, scoring: str) -> None:
    checked = 0
    for seed in range(12):
        games: dict[int, Any] = {}
        for view, memory in positions(seed, rules, scoring):
            hand = view.hand
            assert hand is not None and view.mine is not None and view.you is not None
            seen = memory.seen(view)
            assert seen is not None
            limit = hand.knock_limit
            game = games.setdefault(limit, pyspiel.load_game("gin_rummy", {"knock_card": limit}))
            state, me, _ = build_state(view, seen, game, random.Random(seed))
            assert state.current_player() == me == (0 if view.you != hand.dealer else 1)
            assert sorted(state.hands()[me]) == sorted(
                to_openspiel(Card.parse(c)) for c in view.mine.cards
            )
            assert state.knock_card() == limit
            top = to_openspiel(Card.parse(hand.discard_top)) if hand.discard_top else None
            if hand.phase != "discard":
                assert state.upcard() == top
            if hand.stock_count >= 3 or (hand.phase == "discard" and hand.stock_count >= 2):
                assert state.stock_size() == hand.stock_count
            legal = set(state.legal_actions())
            if seen.forbidden >= 0:
                # OpenSpiel lets a player throw back the card it just took; here it may not
                assert state.prev_upcard() == to_openspiel(CARDS[seen.forbidden])
                legal.discard(to_openspiel(CARDS[seen.forbidden]))
            assert legal == expected_openspiel_legal(view)
            checked += 1
    assert checked > 300


def test_the_state_depends_only_on_what_the_seat_saw() -> None:
    """OpenSpiel's observation of the seat is the same whatever the hidden cards are:
    other random fills, and a replay in which every card the seat never saw moved."""
    for seed in (3, 4, 5):
        options = Options("standard", "game", 100)
        deck = full_deck()
        random.Random(seed).shuffle(deck)
        match = Match(options, rng=random.Random(seed), deck_orders=[deck], first_dealer=1)
        match.start()
        bots = [Bot("normal", random.Random(1)), Bot("normal", random.Random(2))]
        seen_cards: set[str] = set()
        while match.status == "playing" and len(match.log) < 24:
            views = [match.view(0), match.view(1)]
            _seen_by_seat0(views[0], seen_cards)
            for s in (0, 1):
                bots[s].observe(views[s])
            seat = 0 if views[0].legal else 1
            action = bots[seat].choose(views[seat])
            if action.kind == "knock":
                break
            match.apply(seat, action)
        _seen_by_seat0(match.view(0), seen_cards)
        other = _replay_with_hidden_cards_moved(match, seen_cards, seed)
        actions = [e for e in match.log if isinstance(e, ActionTaken)]
        game = pyspiel.load_game("gin_rummy")
        observations: list[list[list[float]]] = [[], []]
        for k, replay in enumerate((match, other)):
            memory = BotMemory()
            if replay is other:
                views_seen = []
                for event in actions:
                    views_seen.append(other.view(0))
                    other.apply(event.seat, event.action)
            # the final position, seen by seat 0, if it is seat 0's turn
            view = replay.view(0)
            memory.observe(view)
            if not view.legal:
                continue
            seen = memory.seen(view)
            assert seen is not None
            for fill in (1, 2):
                state, me, _ = build_state(view, seen, game, random.Random(fill))
                observations[k].append(list(state.observation_tensor(me)))
        if observations[0]:
            assert (
                observations[0][0] == observations[0][1] == observations[1][0] == observations[1][1]
            )


def test_simple_bot_decisions_map_to_legal_actions_in_process() -> None:
    adapter = simple(random.Random(1))
    for seed in range(30):
        for view, _memory in positions(seed):
            action = adapter.choose(view, view.legal)
            assert action in view.legal or (action.kind == "knock" and action.card is not None)
    assert adapter.decisions > 500
    assert adapter.fallbacks == 0


@pytest.mark.anyio
async def test_openspiel_simple_plays_20_hands_on_a_real_server(tmp_path: Path) -> None:
    env = {"HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}
    with running_server(tmp_path / "tables.sqlite3", env=env) as (base, _proc):
        made = httpx.post(
            base + "/api/tables",
            json={"scoring": "hand", "computer": "normal", "bot": True, "name": "OpenSpiel"},
            timeout=10,
        ).json()
        messages: list[dict[str, Any]] = []
        adapter = OpenSpielBot(rng=random.Random(7))
        url = f"{base}/t/{made['table_id']}/seat/{made['token']}"
        played = await play_async(url, adapter, matches=20, on_message=messages.append)
    assert played == 20
    errors = [m for m in messages if m["type"] == "error"]
    # No illegal action, nothing refused as wrong. What a bot meets: both seats send
    # `new_match` on the same state, the second is then on an old version
    # (`stale_version`, decided again on the state that follows); and, against a
    # computer that answers at once, the same message rate as a person's
    # (`rate_limited`: the client waits and sends the same action again).
    assert {m["code"] for m in errors} <= {"stale_version", "rate_limited"}
    assert adapter.fallbacks == 0
    results = {
        (m["hand"]["number"], m["hand"]["deck_commitment"])
        for m in messages
        if m["type"] == "state" and m.get("hand", {}).get("result")
    }
    assert len(results) == 20
    knocks = [
        m
        for m in messages
        if m["type"] == "state" and (m.get("hand") or {}).get("result", {}).get("knocker") == 0
    ]
    assert knocks  # it knocked at least once, through the knock mapping


def test_an_ismcts_search_bot_over_the_built_state_answers_legally() -> None:
    from hollywood_gin.client.openspiel import ismcts_bot

    adapter = OpenSpielBot(ismcts_bot(simulations=30, seconds=0), random.Random(2))
    for asked, (view, _memory) in enumerate(positions(2)):
        play = tuple(a for a in view.legal if a.kind != "resign")
        action = adapter.choose(view, play)
        assert action in view.legal or action.kind == "knock"
        if asked >= 25:
            break
    assert adapter.fallbacks == 0
