"""The Python client on a real server (loopback, real SQLite): a bot written with
`hollywood_gin.client` plays whole matches through the public protocol only."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hollywood_gin.client import ClientError, RandomBot, play, play_async
from hollywood_gin.client.session import Place
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.melds import best_discards
from hollywood_gin.engine.views import View
from tests.conftest import port_of, running_server

FAST = {"HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}


class Greedy:
    """A bot in a dozen lines: takes a pile card that lowers its deadwood, throws the
    card leaving the least, knocks when it may. Counts its hooks."""

    def __init__(self) -> None:
        self.hands = 0
        self.matches = 0
        self.views = 0

    def observe(self, view: View) -> None:
        self.views += 1

    def choose(self, view: View, legal: tuple[Action, ...]) -> Action:
        assert view.mine is not None and view.hand is not None
        kinds = {a.kind for a in legal}
        if kinds & {"discard", "knock"}:
            knocks = [a for a in legal if a.kind == "knock"]
            if knocks:
                return knocks[0]
            best = {str(c) for c, _ in best_discards_of(list(view.mine.cards))}
            return next((a for a in legal if str(a.card) in best), legal[0])
        take = [a for a in legal if a.kind in ("take_upcard", "draw_discard")]
        if take and view.hand.discard_top is not None:
            now = view.mine.deadwood
            after = min(d for _, d in best_discards_of([*view.mine.cards, view.hand.discard_top]))
            if after < now:
                return take[0]
        return next(a for a in legal if a.kind in ("pass", "draw_stock"))

    def hand_over(self, view: View) -> None:
        self.hands += 1

    def match_over(self, view: View) -> None:
        self.matches += 1


def best_discards_of(cards: list[str]) -> list[tuple[Any, int]]:
    from hollywood_gin.engine.cards import Card

    return best_discards([Card.parse(c) for c in cards])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running_server(tmp_path / "tables.sqlite3", env=FAST) as (base, _proc):
        yield base


def create(base: str, **body: Any) -> dict[str, Any]:
    r = httpx.post(base + "/api/tables", json=body, timeout=10)
    assert r.status_code == 201, r.text
    answer: dict[str, Any] = r.json()
    return answer


def test_a_client_bot_plays_a_whole_hollywood_match_against_the_computer(server: str) -> None:
    made = create(server, scoring="hollywood", computer="normal", bot=True, name="Robo")
    bot = Greedy()
    seat_link = f"{server}/t/{made['table_id']}/seat/{made['token']}"
    assert play(seat_link, bot, matches=1) == 1
    facts = httpx.get(f"{server}/api/tables/{made['table_id']}", timeout=10).json()
    assert facts["status"] == "match_over"
    assert [p["bot"] for p in facts["players"]] == [True, False]
    assert facts["players"][1]["computer"] == "normal"
    assert bot.matches == 1 and bot.hands >= 2 and bot.views > bot.hands


@pytest.mark.anyio
async def test_a_bot_takes_the_free_seat_of_a_share_link_and_two_bots_play(server: str) -> None:
    made = create(server, scoring="game", name="Ann", bot=True)
    table_id = made["table_id"]
    seen: list[dict[str, Any]] = []

    first = play_async(f"{server}/t/{table_id}/seat/{made['token']}", RandomBot(), matches=2)
    second = play_async(
        f"{server}/t/{table_id}", Greedy(), name="Bob", matches=2, on_message=seen.append
    )
    assert await asyncio.gather(first, second) == [2, 2]
    # nothing refused as wrong: both seats send next_hand / new_match on the same
    # state, so one of them may be stale (and is decided again on the next state)
    assert {m["code"] for m in seen if m["type"] == "error"} <= {"stale_version", "rate_limited"}
    seen[:] = [m for m in seen if m["type"] == "state" and m["you"] is not None]
    players = seen[-1]["table"]["players"]
    assert [(p["name"], p["bot"]) for p in players] == [("Ann", True), ("Bob", True)]
    assert seen[-1]["you"] == 1
    # every state the bot got is a seat's state: never the other hand before a result
    for state in seen:
        hand = state.get("hand") or {}
        assert "my_cards" in hand or not hand
        if hand and "result" not in hand:
            assert len(hand["my_cards"]) in (10, 11)


def test_refusals_are_client_errors_and_change_nothing(server: str) -> None:
    no_bots = create(server, bots=False)["table_id"]
    with pytest.raises(ClientError) as refused:
        play(f"{server}/t/{no_bots}", RandomBot())
    assert refused.value.code == "no_bots"
    facts = httpx.get(f"{server}/api/tables/{no_bots}", timeout=10).json()
    assert facts["open_seats"] == [1]
    with pytest.raises(ClientError) as unknown:
        play(f"{server}/t/nosuchtable", RandomBot())
    assert unknown.value.code == "unknown_table"
    wrong = create(server)["table_id"]
    with pytest.raises(ClientError) as bad_seat:
        play(f"{server}/t/{wrong}/seat/not-a-token", RandomBot(), give_up_seconds=5)
    assert bad_seat.value.code == "not_seated"
    for url in ("ftp://x/t/a", "http://host/x/y", "http://host/t/a/b"):
        with pytest.raises(ClientError):
            Place.parse(url)


def test_the_client_reconnects_through_a_server_restart(tmp_path: Path) -> None:
    """The server stops mid-match and comes back on the same file: the bot says hello
    with its last version and plays on to the match's end, never acting twice."""
    data = tmp_path / "tables.sqlite3"
    states: list[dict[str, Any]] = []
    enough = threading.Event()

    def watch(message: dict[str, Any]) -> None:
        if message["type"] != "state" or message["you"] is None:
            return
        states.append(message)
        if len(states) >= 12:
            enough.set()

    result: list[int | BaseException] = []
    with running_server(data, env=FAST) as (base, _proc):
        port = port_of(base)  # the restart's, below
        made = create(base, scoring="game", computer="easy", bot=True)
        url = f"{base}/t/{made['table_id']}/seat/{made['token']}"

        def run() -> None:
            try:
                result.append(asyncio.run(play_async(url, Greedy(), on_message=watch)))
            except BaseException as exc:  # reported below
                result.append(exc)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        assert enough.wait(120)
    before = len(states)
    with running_server(data, port=port, env=FAST):
        thread.join(600)
    assert result == [1]
    assert len(states) > before  # it played on after the restart
    versions = [s["version"] for s in states]
    assert versions[-1] >= max(versions)  # the last state is the latest one
    assert states[-1]["table"]["status"] == "match_over"
    assert states[-1]["table"]["players"][0]["bot"] is True  # kept through the restart
