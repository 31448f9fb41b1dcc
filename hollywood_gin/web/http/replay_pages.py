"""The replay page's data, built once per finished hand and kept (issue 41, item 3).

A finished hand never changes, yet its page replayed it with the engine on the event
loop for every request (about 11 ms of CPU: the positions, their JSON, the HTML
escaping): two addresses at 18 requests a second, under the rate limit, pushed
another table's move p99 from 20 ms to 462 ms. Here the hand's part of the page
(`options`, `dealer`, `result`, `sheet` and the positions of `replay.hand_steps`) is
built off the loop, in a thread, one hand at a time, encoded as HTML-safe JSON bytes
and kept in a least-recently-used memory bounded by bytes. A request then only
splices the reader's part (the seat, the players' names) in front of the kept bytes,
and the whole page, once rendered and compressed, is kept too (`page`), by what it
depends on: the hand, the language, the reader's seat, the site's address and the
players' names. A flood of one page then costs a lookup and a copy per request.

The key is the table and the hand's number: numbers are counted over the table's
life and a table's id is never reused, so a kept hand is that hand for good; the
caller still asks whether the table exists (a table that expired is a 404 page,
whatever is kept).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.web.http.replay import hand_steps

Key = tuple[str, int]
# A whole page as one reader gets it: the hand, the language, the reader's seat, the
# site's address, the players' names (`players_of`).
PageKey = tuple[str, int, str, int | None, str, bytes]

# About 200 long hands (a hand's positions are 20 to 90 KB of JSON).
MAX_BYTES = 16 * 2**20
# Whole pages, compressed (8 to 20 KB each).
MAX_PAGE_BYTES = 4 * 2**20


def script_json(value: object) -> bytes:
    """`value` as JSON that may stand inside `<script>`: the characters Jinja's `tojson`
    escapes (`<`, `>`, `&`, `'`) as `\\u` escapes, so no text of it can end the script."""
    raw = orjson.dumps(value)
    if b"<" in raw or b">" in raw or b"&" in raw or b"'" in raw:
        raw = (
            raw.replace(b"<", b"\\u003c")
            .replace(b">", b"\\u003e")
            .replace(b"&", b"\\u0026")
            .replace(b"'", b"\\u0027")
        )
    return raw


def build(record: JsonObject) -> bytes:
    """The hand's part of the replay page's config, as `script_json` bytes (an object)."""
    return script_json(
        {
            "options": record.get("options", {}),
            "dealer": record.get("dealer"),
            "result": record.get("result"),
            # The sheet right after the hand (absent in records kept before it was added).
            "sheet": record.get("sheet"),
            "steps": hand_steps(record),
        }
    )


def players_of(players: list[dict[str, object]]) -> list[dict[str, object]]:
    """What the replay shows of the players: who they are, not whether they are there
    now (so a page stays the same while they come and go, and can be kept whole)."""
    return [{k: p.get(k) for k in ("seat", "name", "computer", "bot")} for p in players]


def config_json(reader: dict[str, Any], kept: bytes) -> str:
    """The page's whole config: the reader's part (`reader`, a non-empty object) and the
    hand's kept bytes, one JSON object (`kept` starts with `{` and is not empty)."""
    head = script_json(reader)
    return (head[:-1] + b"," + kept[1:]).decode()


class ReplayPages:
    """The kept hands of one app (`app.state.replay_pages`)."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._kept: OrderedDict[Key, bytes] = OrderedDict()
        self._bytes = 0
        # One build at a time: a flood of distinct hands waits here, and shares the
        # interpreter with the loop one build (a few ms) at a time.
        self._one = asyncio.Semaphore(1)
        self._building: dict[Key, asyncio.Task[bytes]] = {}
        self.built = 0  # hands built by this process (metrics, tests)
        self.max_page_bytes = MAX_PAGE_BYTES
        self._pages: OrderedDict[PageKey, bytes] = OrderedDict()
        self._page_bytes = 0
        self.on_build: Callable[[], None] | None = None

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def kept_bytes(self) -> int:
        return self._bytes

    async def hand(self, key: Key, record: Callable[[], Awaitable[JsonObject]]) -> bytes:
        """The kept bytes of hand `key`, built from `record()` (which raises for a hand
        not finished: nothing is kept then) when not kept yet. The build is a task of
        its own: requests for the same hand meanwhile wait for that one, and a reader
        who goes away does not cut it short."""
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept
        task = self._building.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._build(key, record))
            self._building[key] = task
            task.add_done_callback(lambda done: self._built(key, done))
        return await asyncio.shield(task)

    async def _build(self, key: Key, record: Callable[[], Awaitable[JsonObject]]) -> bytes:
        finished = await record()
        async with self._one:
            data = await asyncio.to_thread(build, finished)
        self.built += 1
        if self.on_build is not None:
            self.on_build()
        self._keep(key, data)
        return data

    def _built(self, key: Key, task: asyncio.Task[bytes]) -> None:
        self._building.pop(key, None)
        if not task.cancelled():
            task.exception()  # retrieved here: its askers may all have gone

    def page(self, key: PageKey) -> bytes | None:
        """The whole page kept for `key` (gzip), if any."""
        kept = self._pages.get(key)
        if kept is not None:
            self._pages.move_to_end(key)
        return kept

    def keep_page(self, key: PageKey, gzipped: bytes) -> None:
        if len(gzipped) > self.max_page_bytes:
            return
        old = self._pages.pop(key, None)
        self._page_bytes -= 0 if old is None else len(old)
        self._pages[key] = gzipped
        self._page_bytes += len(gzipped)
        while self._page_bytes > self.max_page_bytes:
            _, dropped = self._pages.popitem(last=False)
            self._page_bytes -= len(dropped)

    def _keep(self, key: Key, data: bytes) -> None:
        if len(data) > self.max_bytes:
            return
        self._kept[key] = data
        self._bytes += len(data)
        while self._bytes > self.max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self._bytes -= len(dropped)
