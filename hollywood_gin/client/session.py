"""The client's connection: take a seat, keep the socket, play until the matches end.

Everything here goes through the public protocol (docs/protocol-guide.md) like a browser: a
`POST /api/tables/{id}/seats` with `"bot": true`, then the table's WebSocket with
`hello` and the seat's token. A bot gets exactly what a person's page gets, under
the same limits; the server has no other way in for it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from hollywood_gin.bots.arena import ClientBot, IllegalChoice, Seated, computer, import_factory
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.views import View, view_from_wire

__all__ = [
    "ClientBot",
    "ClientError",
    "IllegalChoice",
    "RandomBot",
    "computer",
    "load_bot",
    "match_summary",
    "play",
    "play_async",
]

log = logging.getLogger("hollywood_gin.client")

CLOSE_GONE = 4404  # the server's close code for a table that does not exist
# Codes after which trying again cannot help: the table is gone, the seat is not ours.
FATAL = {"unknown_table", "not_seated"}


class ClientError(Exception):
    """The server refused the bot for good (no such table, no free seat, no bots
    allowed, a wrong seat link) or could not be reached for `give_up_seconds`.
    `code` is the protocol's error code where there is one."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def match_summary(view: View) -> str:
    """A finished match from the seat's side: who won, the sheet's totals, and how a
    match that did not play out ended ("won, 112 to 45", "lost (resigned), 20 to 0")."""
    me = view.you if view.you is not None else 0
    ended = view.table.ended
    winner = ended.winner if ended is not None else view.sheet.match_winner
    outcome = "no winner" if winner is None else "won" if winner == me else "lost"
    if ended is not None:
        mine = ended.seat == me
        if ended.by == "claim":
            who = "claimed: the opponent was away" if mine else "claimed by the opponent"
        else:
            who = "resigned" if mine else "the opponent resigned"
        outcome += f" ({who})"
    totals = view.sheet.totals
    return f"{outcome}, {totals[me]} to {totals[1 - me]}"


class RandomBot:
    """Any open action, at random: the smallest bot there is."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(self, view: View, legal: tuple[Action, ...]) -> Action:
        return self.rng.choice(legal)


def load_bot(spec: str) -> Callable[[], ClientBot]:
    """The bot factory a name stands for: `easy`, `normal`, `hard` (the site's
    computer, in your process), `random`, `openspiel:simple` (the `bots` extra), or
    `module:factory` where `factory()` returns a bot.

    :raises ClientError: no such module or factory.
    """
    if spec in ("easy", "normal", "hard"):
        return lambda: computer(spec)
    if spec == "random":
        return RandomBot
    try:
        made = import_factory(spec)
    except ValueError as exc:
        raise ClientError(str(exc)) from None
    factory: Callable[[], ClientBot] = made
    return factory


@dataclass(frozen=True)
class Place:
    """Where to play: the server's base URL, the table, and the seat's token if the
    URL was a seat link."""

    base: str
    table_id: str
    token: str | None

    @property
    def socket_url(self) -> str:
        scheme = "wss" if self.base.startswith("https:") else "ws"
        return f"{scheme}{self.base[self.base.index(':') :]}/ws/tables/{self.table_id}"

    @staticmethod
    def parse(url: str) -> Place:
        """`https://host/t/{id}` (a share link) or `https://host/t/{id}/seat/{token}`.

        :raises ClientError: anything else.
        """
        parts = urllib.parse.urlsplit(url.strip())
        segments = [s for s in parts.path.split("/") if s]
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ClientError(f"not a table link: {url!r} (http(s)://host/t/ID)")
        if len(segments) == 2 and segments[0] == "t":
            token = None
        elif len(segments) == 4 and segments[0] == "t" and segments[2] == "seat":
            token = segments[3]
        else:
            raise ClientError(f"not a table link: {url!r} (http(s)://host/t/ID)")
        return Place(f"{parts.scheme}://{parts.netloc}", segments[1], token)


def _post(url: str, body: dict[str, Any], timeout: float) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "User-Agent": "hollywood-gin-client"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            data = json.loads(exc.read() or b"{}")
        except ValueError:
            data = {}
        return exc.code, data if isinstance(data, dict) else {}


async def join(place: Place, name: str | None, *, timeout: float = 10) -> str:
    """Take the table's free seat as a bot; the seat's token.

    :raises ClientError: the table is full, refuses bots, or does not exist.
    """
    body: dict[str, Any] = {"bot": True}
    if name:
        body["name"] = name
    url = f"{place.base}/api/tables/{place.table_id}/seats"
    for attempt in range(10):
        status, data = await asyncio.to_thread(_post, url, body, timeout)
        if status == 201 and isinstance(data.get("token"), str):
            return str(data["token"])
        code = str(data.get("error", status))
        if code in ("rate_limited", "server_error") and attempt < 9:
            await asyncio.sleep(1.0)  # the same limits as anyone's: wait and ask again
            continue
        raise ClientError(f"cannot take a seat: {data.get('message', code)}", code)
    raise AssertionError("unreachable")


class _Session:
    """One seat's socket, kept until the matches are played."""

    def __init__(
        self,
        place: Place,
        token: str,
        bot: ClientBot,
        matches: int,
        give_up_seconds: float,
        on_message: Callable[[dict[str, Any]], None] | None,
        on_match: Callable[[View], None] | None = None,
    ) -> None:
        self.place = place
        self.token = token
        self.seated = Seated(bot)
        self.matches = matches
        self.give_up_seconds = give_up_seconds
        self.on_message = on_message
        self.on_match = on_match
        self.version = 0  # the last state version seen (sent in `hello`)
        self.played = 0
        self.status: str | None = None
        self.acted: int | None = None  # the version our last action was chosen on
        self.pending: dict[str, Any] | None = None  # that action's message, to resend

    async def run(self) -> int:
        backoff = 0.5
        failing_since: float | None = None
        while True:
            try:
                async with connect(
                    self.place.socket_url,
                    open_timeout=10,
                    max_size=2**22,
                    user_agent_header="hollywood-gin-client",
                ) as ws:
                    failing_since = None
                    backoff = 0.5
                    if await self._play(ws):
                        return self.played
            except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed) as exc:
                if isinstance(exc, ConnectionClosed) and _closed_for_good(exc):
                    raise ClientError("the table is gone", "unknown_table") from None
                if isinstance(exc, InvalidStatus) and exc.response.status_code in (403, 404):
                    raise ClientError(
                        f"the server refused the socket ({exc.response.status_code})"
                    ) from None
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since > self.give_up_seconds:
                    raise ClientError(
                        f"no connection for {self.give_up_seconds:.0f} s: {exc}"
                    ) from exc
                log.info("connection lost (%s); again in %.1f s", exc, backoff)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)

    async def _play(self, ws: ClientConnection) -> bool:
        """Play on this socket; True once the matches are done, False if it closed."""
        # A new socket: whatever we sent before may never have arrived. An action on
        # an old version is refused (`stale_version`), so resending is always safe.
        self.acted = None
        self.pending = None
        await ws.send(json.dumps({"type": "hello", "token": self.token, "version": self.version}))
        async for raw in ws:
            message = json.loads(raw)
            if self.on_message is not None:
                self.on_message(message)
            kind = message.get("type")
            if kind == "state":
                if message.get("you") is None:
                    continue  # sent before our hello was read
                if await self._on_state(ws, message):
                    return True
            elif kind == "error":
                await self._on_error(ws, message)
        return False

    async def _on_state(self, ws: ClientConnection, message: dict[str, Any]) -> bool:
        view = view_from_wire(message)
        self.version = view.version
        self.seated.observe(view)
        status = view.table.status
        if status == "match_over" and self.status != "match_over":
            self.played += 1
            log.info("match %d over", self.played)
            if self.on_match is not None:
                self.on_match(view)
        self.status = status
        if status == "match_over" and self.played >= self.matches:
            await ws.close()
            return True
        if self.acted == view.version:
            return False  # the same version again (an arrange, a presence change)
        action = await asyncio.to_thread(self.seated.decide, view)
        if action is None:
            return False
        self.acted = view.version
        self.pending = {"type": "action", "version": view.version, "action": action.to_dict()}
        await ws.send(json.dumps(self.pending))
        return False

    async def _on_error(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        code = message.get("code")
        text = message.get("message", "")
        if code in FATAL:
            raise ClientError(f"{code}: {text}", str(code))
        if code in ("rate_limited", "server_error") and self.pending is not None:
            # Nothing changed: the same action, on the same version, a moment later.
            await asyncio.sleep(1.0)
            if self.pending is not None and self.pending["version"] == self.version:
                await ws.send(json.dumps(self.pending))
            return
        if code == "rate_limited":
            # too many tabs for this seat (at hello): let this socket go, try again later
            raise ConnectionClosedByUs()
        # stale_version: the current state follows and is decided on afresh (both
        # seats send new_match / next_hand on the same state: one of them is stale).
        level = logging.DEBUG if code == "stale_version" else logging.WARNING
        log.log(level, "server answered %s: %s", code, text)
        self.pending = None
        if code != "stale_version":
            # illegal_action / not_your_turn / bad_message change nothing and no state
            # follows them: waiting for one could wait for ever. A new socket's hello
            # brings the present state, decided on afresh.
            raise ConnectionClosedByUs()


class ConnectionClosedByUs(OSError):
    """This socket is given up (too many tabs for the seat, a refusal no state follows);
    the session reconnects."""


def _closed_for_good(exc: ConnectionClosed) -> bool:
    return exc.rcvd is not None and exc.rcvd.code == CLOSE_GONE


async def play_async(
    url: str,
    bot: ClientBot,
    name: str | None = None,
    matches: int = 1,
    *,
    give_up_seconds: float = 300.0,
    on_message: Callable[[dict[str, Any]], None] | None = None,
    on_match: Callable[[View], None] | None = None,
) -> int:
    """`play` for a caller already in an event loop.

    `on_message` (tests, logging) is called with every message the socket
    receives, as received (states, errors, pongs).
    """
    if matches < 1:
        raise ValueError("matches is at least 1")
    if not callable(getattr(bot, "choose", None)):
        raise TypeError("a bot has a choose(view, legal) method")
    place = Place.parse(url)
    token = place.token or await join(place, name)
    session = _Session(place, token, bot, matches, give_up_seconds, on_message, on_match)
    return await session.run()


def play(
    url: str,
    bot: ClientBot,
    name: str | None = None,
    matches: int = 1,
    *,
    give_up_seconds: float = 300.0,
    on_match: Callable[[View], None] | None = None,
) -> int:
    """Play the table at `url` with `bot` until `matches` matches are over; the
    number played. `on_match` is called with the seat's view once as each match ends
    (its sheet, its winner: `match_summary` words it).

    `url` is a share link (`https://host/t/{id}`: the bot takes the free seat, as
    a bot, under `name`) or a seat link (`https://host/t/{id}/seat/{token}`: the bot
    plays that seat). The connection is kept: after a drop it reconnects with
    `hello` and the last version seen; an action refused as `stale_version` is
    decided again on the state that follows; `rate_limited` and `server_error` wait
    a second and send the same action again.

    :raises ClientError: the seat cannot be had, or the server is unreachable for
        `give_up_seconds`.
    :raises IllegalChoice: the bot chose something that is not open.
    """
    return asyncio.run(
        play_async(url, bot, name, matches, give_up_seconds=give_up_seconds, on_match=on_match)
    )
