"""One client against everybody else (issue 14): a victim table's move latency while
each attack runs, on a real server (`python -m hollywood_gin`, default settings) on loopback.

The victim is a separate process (`victim` below) playing its own two-seat table
from 127.0.0.1, one move every 100 ms; its latency is the time from sending an
action to the acting socket's next state. Each attack runs for `--seconds` from
other loopback addresses (127.0.0.2, 127.0.0.3: Linux routes all of 127/8), so
per-address limits meet the attacker, not the victim. Printed per attack: the
victim's median and p99 beside the baseline, the issue's goal (p99 within 2 x
baseline + 20 ms), the server's RSS growth and what the attack itself saw.

Attacks (the numbers are the issue's items):
  1 computer   40 tables against the hard computer, their person side played at once
  2 bodies     4 clients posting 64 MiB bodies (two with a length, two chunked)
  3 arrange    one table's 10 sockets sending `arrange` at the allowed rate
  4 headers    1,000 connections trickling header bytes; a 16 MiB header; 100,000 headers
  7 pages      16 clients fetching the table page in a loop
  7 churn      8 loops opening and closing sockets
 24 reviews    10 hand reviews computing at once (the coach, issue 24): 10 finished
               hands played before the baseline, their reviews asked for at the attack's
               start and polled each second until they come (`--seconds` bounds it)

Issue 41 (items 2-4):
  replay_flood   2 addresses (127.0.0.2, .3) fetching replay pages of 4 finished hands
                 at 18 requests a second each (the hands played before the baseline)
  arrange_flood  40 sockets from one address (4 tables x 2 seats x 5 tabs) sending
                 `arrange` 8 times a second each
  review_flood   the coach's fairness (41.1): an address (127.0.0.2) polls the 28 review
                 keys of 14 finished hands at 10 requests a second while a victim on
                 127.0.0.1 asks for its own hand's review once a second; printed: the
                 victim's review time alone (measured first, in the same run, on an
                 identical hand) and under the flood, the goal (2 x alone + 10 s), and
                 how many of the attacker's reviews came before the victim's (goal < 3).
                 Runs until the victim's review comes, or `--seconds` + 50 s: give it 300
                 for the code before issue 41 (`--commit 54c08c2`)
  ready_stall    a 15 s clock: the hand played out, one seat sends next_hand, the other
                 stays connected and silent; seconds until the first may claim (runs
                 at least 60 s whatever `--seconds` says)
The load average (1 min) is printed with every line: on a shared machine, rerun on a
quiet one.

Issue 28 (`--proxy`: a throwaway PostgreSQL, two workers with default limits and the
shipped deploy/haproxy.cfg in a real HAProxy; the victim plays through it too):
  28.1 bounce    9 requests a second for the victim's table under a percent-encoded id
  28.3 slowconn  300 connections from one address sending a body a byte every 5 s
  28.5 bodies    (above) and 28.5 files: 11 addresses x 100 idle connections with the
                 server's 1,024 files; 28.5 slowbody: 3 bodies a byte every 5 s
  28.6 creates   20 addresses creating tables as fast as they can
Without `--proxy` the same attacks that apply run against the single server.

Bounded: every attack stops after `--seconds` (default 12) and its sockets are closed.
Run with nice, e.g. `nice -n 10 python -m benchmarks.bench_abuse` (not 19 for `reviews`:
the computer's workers lower their priority by 10 below the server's, which nice 19
caps); `--commit 3db7070` runs the server of that commit (the version before issue 14)
for the "before" figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.compat import playable
from benchmarks.serve import REPO, export, free_port, stop, wait_healthy
from hollywood_gin.engine import Card, deadwood
from tests.bots.coach_hands import UNDERCUT

VICTIM_PERIOD = 0.1
ATTACKER = "127.0.0.2"
CHURNER = "127.0.0.3"
# What a default deployment gets from systemd or a shell: the report's 1,024 files.
SERVER_OPEN_FILES = 1024


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- the server -----------------------------------------------------------------------------
@contextmanager
def server(root: Path, data: Path) -> Iterator[tuple[str, psutil.Process]]:
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "HOLLYWOOD_GIN_HOST": "127.0.0.1",
            "HOLLYWOOD_GIN_PORT": str(port),
            "HOLLYWOOD_GIN_DATA_FILE": str(data),
            "HOLLYWOOD_GIN_LOG_LEVEL": "error",
            # review_flood deals a fixed hand twice (`test_decks`); nothing else uses it.
            "HOLLYWOOD_GIN_TEST_HOOKS": "true",
        }
    )

    def limit_files() -> None:
        # Hard too (`--ulimit nofile=1024`): the server cannot raise it (issue 28, 5).
        resource.setrlimit(resource.RLIMIT_NOFILE, (SERVER_OPEN_FILES, SERVER_OPEN_FILES))

    proc = subprocess.Popen(
        [sys.executable, "-m", "hollywood_gin"], cwd=root, env=env, preexec_fn=limit_files
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, base)
        yield base, psutil.Process(proc.pid)
    finally:
        stop(proc)


@contextmanager
def server_only(root: Path, data: Path) -> Iterator[tuple[str, psutil.Process, None]]:
    with server(root, data) as (base, proc):
        yield base, proc, None


def rss_mib(proc: psutil.Process | list[psutil.Process]) -> float:
    """The server(s) and their children (the computer's worker processes)."""
    total = 0
    for one in proc if isinstance(proc, list) else [proc]:
        with contextlib.suppress(psutil.Error):
            total += one.memory_info().rss
            for child in one.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    total += child.memory_info().rss
    return total / 2**20


def cpu_seconds(proc: psutil.Process | list[psutil.Process]) -> float:
    """CPU time (user + system) of the server(s) and their children so far."""
    total = 0.0
    for one in proc if isinstance(proc, list) else [proc]:
        with contextlib.suppress(psutil.Error):
            for p in [one, *one.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    times = p.cpu_times()
                    total += times.user + times.system
    return total


@contextmanager
def scaled(root: Path) -> Iterator[tuple[str, list[psutil.Process], Any]]:
    """PostgreSQL, two workers with their default limits, and the shipped HAProxy
    config in front (HAProxy faces its clients: nothing trusted in front of it)."""
    from tests.scale.cluster import running_scale

    env = {
        "HOLLYWOOD_GIN_LOG_LEVEL": "warning",
        "HOLLYWOOD_GIN_HTTP_BURST": "20",
        "HOLLYWOOD_GIN_WS_CONNECTS_BURST": "60",
        "HOLLYWOOD_GIN_TABLES_PER_HOUR_PER_ADDRESS": "60",
        "HOLLYWOOD_GIN_TABLES_PER_MINUTE": "600",
        "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10",
        "HOLLYWOOD_GIN_WS_BURST": "30",
        "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0.8",
    }
    with running_scale("gin-abuse-scale-", env=env) as s:
        procs = [psutil.Process(w.proc.pid) for w in s.workers if w.proc is not None]
        yield s.proxy.base, procs, s


def ws_url(base: str, table_id: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/tables/{table_id}"


async def open_seat(
    base: str, table_id: str, token: str, seat: int, local: str
) -> tuple[ClientConnection, dict[str, Any]]:
    ws = await connect(
        ws_url(base, table_id),
        origin=None,
        proxy=None,
        ping_interval=None,
        open_timeout=30,
        local_addr=(local, 0),
    )
    await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
    while True:
        message = orjson.loads(await ws.recv())
        if message.get("type") == "state" and message.get("you") == seat:
            return ws, message


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    plain = [a for a in legal if a["kind"] != "knock"] or legal
    knocks = [a for a in legal if a["kind"] == "knock"]
    if knocks and rng.random() < 0.3:
        return rng.choice(knocks)
    return rng.choice(plain)


# --- the victim (its own process) -----------------------------------------------------------
async def victim(base: str, seconds: float) -> None:
    """Play one table from 127.0.0.1, one move per period; print a JSON line per move."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        made = (await http.post("/api/tables", json={"name": "Vic"})).json()
        joined = (await http.post(f"/api/tables/{made['table_id']}/seats", json={})).json()
    table_id = made["table_id"]
    print(json.dumps({"table_id": table_id}), flush=True)
    seats = [
        await open_seat(base, table_id, made["token"], 0, "127.0.0.1"),
        await open_seat(base, table_id, joined["token"], 1, "127.0.0.1"),
    ]
    socks = [s[0] for s in seats]
    states = [s[1] for s in seats]
    rng = random.Random(7)
    end = time.monotonic() + seconds
    next_tick = time.monotonic()
    while time.monotonic() < end:
        next_tick += VICTIM_PERIOD
        version = max(s["version"] for s in states)
        mover = next(
            (i for i in (0, 1) if playable(states[i]["legal"]) and states[i]["version"] == version),
            None,
        )
        if mover is None:
            for i in (0, 1):  # catch up: read what is waiting
                with contextlib.suppress(TimeoutError):
                    states[i] = orjson.loads(await asyncio.wait_for(socks[i].recv(), 0.05))
            continue
        action = choose(rng, playable(states[mover]["legal"]))
        sent = time.perf_counter()
        await socks[mover].send(
            orjson.dumps({"type": "action", "version": version, "action": action}).decode()
        )
        try:
            while True:
                message = orjson.loads(await asyncio.wait_for(socks[mover].recv(), 30))
                if message.get("type") == "state":
                    states[mover] = message
                    if message["version"] > version:
                        break
                elif message.get("type") == "error":
                    break
        except TimeoutError:
            print(json.dumps({"t": time.time(), "timeout": True}), flush=True)
            continue
        latency = time.perf_counter() - sent
        print(json.dumps({"t": time.time(), "ms": latency * 1000}), flush=True)
        other = 1 - mover
        # The other seat's state for that version (already sent by the server).
        with contextlib.suppress(TimeoutError):
            while states[other]["version"] <= version:
                message = orjson.loads(await asyncio.wait_for(socks[other].recv(), 5))
                if message.get("type") == "state":
                    states[other] = message
        await asyncio.sleep(max(0.0, next_tick - time.monotonic()))
    for ws in socks:
        await ws.close()


# --- attacks --------------------------------------------------------------------------------
def attacker_client(base: str, local: str = ATTACKER, **kw: Any) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=local, retries=0)
    return httpx.AsyncClient(base_url=base, transport=transport, timeout=30, **kw)


async def until(deadline: float) -> None:
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))


async def play_person(
    base: str, table_id: str, token: str, deadline: float, seen: dict[str, int]
) -> None:
    """The person's side of a computer table: move at once, whenever it may."""
    rng = random.Random(table_id)
    ws, state = await open_seat(base, table_id, token, 0, ATTACKER)
    try:
        while time.monotonic() < deadline:
            if playable(state["legal"]):
                action = choose(rng, playable(state["legal"]))
                await ws.send(
                    orjson.dumps(
                        {"type": "action", "version": state["version"], "action": action}
                    ).decode()
                )
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                break
            message = orjson.loads(raw)
            if message.get("type") == "state":
                last = (message.get("hand") or {}).get("last_action") or {}
                if last.get("seat") == 1 and message["version"] > state["version"]:
                    seen["computer_moves"] += 1
                state = message
    finally:
        await ws.close()


async def attack_computer(base: str, deadline: float, tables: int = 40) -> dict[str, Any]:
    seen = {"computer_moves": 0, "refused": 0}
    made = []
    async with attacker_client(base) as http:
        for _ in range(tables):
            r = await http.post("/api/tables", json={"name": "Ann", "computer": "hard"})
            if r.status_code == 201:
                made.append(r.json())
            else:
                seen["refused"] += 1
    started = time.monotonic()
    await asyncio.gather(
        *(play_person(base, m["table_id"], m["token"], deadline, seen) for m in made),
        return_exceptions=True,
    )
    elapsed = max(0.001, time.monotonic() - started)
    return {
        "tables": len(made),
        "computer_moves_per_s": round(seen["computer_moves"] / elapsed, 1),
        "refused": seen["refused"],
    }


def sensible(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A quick player that ends hands: knocks when it may, throws the card that leaves
    the least deadwood, takes the pile's card when it lowers its deadwood."""
    legal: list[dict[str, Any]] = playable(state["legal"])
    knocks = [a for a in legal if a["kind"] == "knock"]
    if knocks:
        return min(knocks, key=lambda a: a["deadwood"])

    def dw(cards: list[str]) -> int:
        return deadwood([Card.parse(c) for c in cards])

    mine: list[str] = state["hand"]["my_cards"]
    kinds = {a["kind"] for a in legal}
    if kinds & {"take_upcard", "draw_discard"}:
        top = state["hand"]["discard_top"]
        take = min(dw([c for c in [*mine, top] if c != d]) for d in mine) < dw(mine)
        wanted = ("take_upcard", "draw_discard") if take else ("pass", "draw_stock")
        return next(a for a in legal if a["kind"] in wanted)
    discards = [a for a in legal if a["kind"] == "discard"]
    if discards:
        return min(discards, key=lambda a: (dw([c for c in mine if c != a["card"]]), rng.random()))
    return rng.choice(legal)


async def finish_hands(base: str, count: int) -> list[str]:
    """Tables of two people (from the attacker's address) whose first hand is played
    to its end by random moves: what `attack_reviews` asks the coach about."""
    finished = []
    async with attacker_client(base) as http:
        for n in range(count):
            made = (await http.post("/api/tables", json={"name": "Rev"})).json()
            joined = (await http.post(f"/api/tables/{made['table_id']}/seats", json={})).json()
            table_id = made["table_id"]
            seats = [
                await open_seat(base, table_id, made["token"], 0, ATTACKER),
                await open_seat(base, table_id, joined["token"], 1, ATTACKER),
            ]
            socks = [ws for ws, _ in seats]
            states = [state for _, state in seats]
            rng = random.Random(n)
            try:
                while (states[0].get("hand") or {}).get("phase") != "over":
                    version = max(st["version"] for st in states)
                    mover = next(
                        (
                            i
                            for i in (0, 1)
                            if playable(states[i]["legal"]) and states[i]["version"] == version
                        ),
                        None,
                    )
                    if mover is None:
                        for i in (0, 1):
                            with contextlib.suppress(TimeoutError):
                                states[i] = orjson.loads(
                                    await asyncio.wait_for(socks[i].recv(), 0.05)
                                )
                        continue
                    action = sensible(states[mover], rng)
                    await socks[mover].send(
                        orjson.dumps(
                            {"type": "action", "version": version, "action": action}
                        ).decode()
                    )
                    for i in (0, 1):
                        while True:
                            message = orjson.loads(await asyncio.wait_for(socks[i].recv(), 30))
                            if message.get("type") == "state" and message["version"] > version:
                                states[i] = message
                                break
                            if message.get("type") == "error":
                                await asyncio.sleep(1.0)  # rate limited: go on more slowly
                                break
                    # Under the per-connection message rate (10 a second).
                    await asyncio.sleep(0.06)
            finally:
                for ws in socks:
                    await ws.close()
            finished.append(table_id)
    return finished


async def attack_reviews(base: str, deadline: float, tables: list[str]) -> dict[str, Any]:
    """Ask for the review of each finished hand (seat 0) and poll until it comes."""
    started = time.monotonic()
    took: list[float] = []
    errors = {"http": 0}

    async def one(http: httpx.AsyncClient, table_id: str) -> None:
        while time.monotonic() < deadline:
            try:
                r = await http.get(f"/api/tables/{table_id}/hands/1/review?seat=0")
            except httpx.HTTPError:  # a kept-alive connection closed meanwhile: ask again
                errors["http"] += 1
                continue
            if r.status_code == 200:
                took.append(time.monotonic() - started)
                return
            await asyncio.sleep(1.0)

    async with attacker_client(base) as http:
        await asyncio.gather(*(one(http, t) for t in tables))
    await until(deadline)
    return {
        "reviews": len(tables),
        "done": len(took),
        "last_s": round(max(took), 1) if took else None,
        "http_errors": errors["http"],
    }


async def big_body(chunk: int, total: int, known_length: bool) -> AsyncIterator[bytes]:
    del known_length
    block = b"x" * chunk
    sent = 0
    yield b'{"name": "'
    while sent < total:
        yield block
        sent += chunk
    yield b'"}'


async def attack_bodies(base: str, deadline: float) -> dict[str, Any]:
    size = 64 * 2**20
    body = b'{"name": "' + b"x" * size + b'"}'  # built once: the attacker's own CPU is not the test
    statuses: list[int | str] = []

    async def one(known_length: bool) -> None:
        async with attacker_client(base) as http:
            while time.monotonic() < deadline:
                headers = {"content-type": "application/json"}
                try:
                    if known_length:
                        r = await http.post("/api/tables", content=body, headers=headers)
                    else:
                        r = await http.post(
                            "/api/tables",
                            content=big_body(65536, size, False),
                            headers=headers,
                        )
                    statuses.append(r.status_code)
                except httpx.HTTPError as exc:
                    statuses.append(type(exc).__name__)
                await asyncio.sleep(0.2)

    await asyncio.gather(one(True), one(True), one(False), one(False))
    counts: dict[str, int] = {}
    for s in statuses:
        counts[str(s)] = counts.get(str(s), 0) + 1
    return {"answers": counts}


def stored_rows(data: Path, table_id: str) -> tuple[int, int]:
    """The table's rows of events and the file's bytes (with its WAL)."""
    with sqlite3.connect(f"file:{data}?mode=ro", uri=True) as db:
        (rows,) = db.execute(
            "SELECT COUNT(*) FROM events WHERE table_id = ?", (table_id,)
        ).fetchone()
    size = sum(p.stat().st_size for p in data.parent.glob(data.name + "*"))
    return int(rows), size


async def attack_arrange(base: str, deadline: float, data: Path) -> dict[str, Any]:
    async with attacker_client(base) as http:
        made = (await http.post("/api/tables", json={"name": "Ann"})).json()
        joined = (await http.post(f"/api/tables/{made['table_id']}/seats", json={})).json()
    rows_before, bytes_before = stored_rows(data, made["table_id"])
    sent = 0

    async def arranger(token: str, seat: int) -> None:
        nonlocal sent
        ws, state = await open_seat(base, made["table_id"], token, seat, ATTACKER)
        rng = random.Random(seat)

        async def drain() -> None:
            with contextlib.suppress(Exception):
                async for _ in ws:
                    pass

        reader = asyncio.create_task(drain())
        cards = list(state["hand"]["my_cards"])
        try:
            while time.monotonic() < deadline:
                rng.shuffle(cards)
                await ws.send(orjson.dumps({"type": "arrange", "cards": cards}).decode())
                sent += 1
                await asyncio.sleep(0.1)  # the allowed 10 messages per second
        finally:
            reader.cancel()
            await ws.close()

    tokens = [(made["token"], 0)] * 5 + [(joined["token"], 1)] * 5
    await asyncio.gather(*(arranger(t, s) for t, s in tokens), return_exceptions=True)
    await asyncio.sleep(1.5)  # the WAL checkpoint
    rows_after, bytes_after = stored_rows(data, made["table_id"])
    return {
        "arranges_sent": sent,
        "table_rows_added": rows_after - rows_before,
        "file_kib_added": round((bytes_after - bytes_before) / 1024, 1),
    }


async def raw_request(host: str, port: int, payload: bytes, local: str) -> str:
    """Send raw bytes; the status line answered (or what went wrong)."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, local_addr=(local, 0)), 10
        )
    except (OSError, TimeoutError) as exc:
        return type(exc).__name__
    try:
        writer.write(payload)
        await asyncio.wait_for(writer.drain(), 20)
        line = await asyncio.wait_for(reader.readline(), 20)
        return line.decode(errors="replace").strip()[:40] or "closed"
    except (OSError, TimeoutError) as exc:
        return type(exc).__name__
    finally:
        writer.close()


async def attack_headers(base: str, deadline: float, conns: int = 1000) -> dict[str, Any]:
    port = int(base.rsplit(":", 1)[1])
    host = "127.0.0.1"
    writers: list[asyncio.StreamWriter] = []
    opened_fail = 0
    cut: list[float] = []  # when the server closed a trickling connection
    started = time.monotonic()

    async def trickle() -> None:
        nonlocal opened_fail
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(host, port, local_addr=(ATTACKER, 0)), 10
            )
        except (OSError, TimeoutError):
            opened_fail += 1
            return
        writers.append(writer)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")

        async def until_closed() -> None:
            with contextlib.suppress(OSError, ConnectionError):
                await reader.read()  # to EOF: the server hung up
            cut.append(time.monotonic() - started)

        closed = asyncio.create_task(until_closed())
        with contextlib.suppress(OSError, ConnectionError):
            while time.monotonic() < deadline and not closed.done():
                await asyncio.sleep(2.0)
                writer.write(b"X-a: b\r\n")
                await writer.drain()
        if not closed.done():
            closed.cancel()

    tricklers = [asyncio.create_task(trickle()) for _ in range(conns)]
    await asyncio.sleep(2)
    big = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 16 * 2**20 + b"\r\n\r\n"
    many = (
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + b"".join(b"X-%d: a\r\n" % i for i in range(100_000))
        + b"\r\n"
    )
    big_answer, many_answer = await asyncio.gather(
        raw_request(host, port, big, CHURNER), raw_request(host, port, many, CHURNER)
    )
    # Can anybody else still get an answer?
    probes = []
    for _ in range(5):
        try:
            async with httpx.AsyncClient(timeout=3) as http:
                probes.append((await http.get(base + "/healthz")).status_code == 200)
        except httpx.HTTPError:
            probes.append(False)
        await asyncio.sleep(0.5)
    await asyncio.gather(*tricklers, return_exceptions=True)
    held = conns - opened_fail - len(cut)
    for writer in writers:
        writer.close()
    return {
        "trickling": conns,
        "refused_at_connect": opened_fail,
        "cut_by_server": len(cut),
        "cut_median_s": round(statistics.median(cut), 1) if cut else None,
        "still_held_at_end": held,
        "16MiB_header": big_answer,
        "100k_headers": many_answer,
        "healthz_ok": f"{sum(probes)}/{len(probes)}",
    }


async def attack_pages(base: str, deadline: float, table_id: str, clients: int = 16) -> dict:
    answers: dict[str, int] = {}

    async def fetcher() -> None:
        async with attacker_client(base) as http:
            while time.monotonic() < deadline:
                try:
                    r = await http.get(f"/t/{table_id}")
                    key = str(r.status_code)
                except httpx.HTTPError as exc:
                    key = type(exc).__name__
                answers[key] = answers.get(key, 0) + 1

    await asyncio.gather(*(fetcher() for _ in range(clients)))
    return {"answers": answers}


async def attack_churn(base: str, deadline: float, table_id: str, loops: int = 8) -> dict:
    opened = 0
    refused = 0

    async def churn() -> None:
        nonlocal opened, refused
        while time.monotonic() < deadline:
            try:
                ws = await connect(
                    ws_url(base, table_id),
                    origin=None,
                    proxy=None,
                    ping_interval=None,
                    open_timeout=10,
                    local_addr=(CHURNER, 0),
                )
                opened += 1
                await ws.close()
            except Exception:
                refused += 1

    started = time.monotonic()
    await asyncio.gather(*(churn() for _ in range(loops)))
    elapsed = max(0.001, time.monotonic() - started)
    return {"opened_per_s": round(opened / elapsed), "refused_per_s": round(refused / elapsed)}


# --- issue 28 --------------------------------------------------------------------------------
VICTIM: dict[str, str] = {}


async def attack_bounce(base: str, deadline: float, scale: Any) -> dict[str, Any]:
    """28.1: the victim's table under a percent-encoded id, 9 times a second."""
    table_id = VICTIM["table_id"]
    encoded = f"%{ord(table_id[0]):02X}{table_id[1:]}"

    async def epoch() -> int | None:
        if scale is None:
            return None
        rows = await scale.sql("SELECT owner_epoch FROM tables WHERE id = $1", table_id)
        return int(rows[0]["owner_epoch"])

    before = await epoch()
    answers: dict[str, int] = {}
    async with attacker_client(base) as http:
        while time.monotonic() < deadline:
            try:
                key = str((await http.get(f"/api/tables/{encoded}")).status_code)
            except httpx.HTTPError as exc:
                key = type(exc).__name__
            answers[key] = answers.get(key, 0) + 1
            await asyncio.sleep(1 / 9)
    after = await epoch()
    return {
        "answers": answers,
        "epoch_bumps": None if before is None or after is None else after - before,
    }


async def slow_body(host: str, port: int, local: str, deadline: float, every: float) -> str:
    """A POST whose body comes a byte every `every` seconds; how it ended."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, local_addr=(local, 0)), 10
        )
    except (OSError, TimeoutError) as exc:
        return f"connect {type(exc).__name__}"
    try:
        writer.write(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        )
        while time.monotonic() < deadline:
            try:
                line = await asyncio.wait_for(reader.readline(), every)
                return line.decode(errors="replace").strip()[:12] or "closed"
            except TimeoutError:
                writer.write(b" ")
                await writer.drain()
        return "held"
    except (OSError, ConnectionError) as exc:
        return type(exc).__name__
    finally:
        writer.close()


async def attack_slowconn(base: str, deadline: float, conns: int = 300) -> dict[str, Any]:
    """28.3: many connections from one address, each sending its body a byte every 5 s."""
    host, port = base.removeprefix("http://").split(":")
    ends = await asyncio.gather(
        *(slow_body(host, int(port), ATTACKER, deadline, 5.0) for _ in range(conns))
    )
    counts: dict[str, int] = {}
    for e in ends:
        counts[e] = counts.get(e, 0) + 1
    return {"connections": conns, "ended": counts}


async def attack_slowbody(base: str, deadline: float) -> dict[str, Any]:
    """28.5: three bodies a byte every 5 s; still open at the end?"""
    host, port = base.removeprefix("http://").split(":")
    ends = await asyncio.gather(
        *(slow_body(host, int(port), ATTACKER, deadline, 5.0) for _ in range(3))
    )
    return {"ended": ends}


async def attack_files(base: str, deadline: float) -> dict[str, Any]:
    """28.5: 11 addresses x 100 idle connections (no request) against the server's 1,024
    files; is /healthz still answered, and what became of the idle ones?"""
    host, port = base.removeprefix("http://").split(":")
    held: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    failed = 0

    async def hold(local: str) -> None:
        nonlocal failed
        try:
            held.append(
                await asyncio.wait_for(
                    asyncio.open_connection(host, int(port), local_addr=(local, 0)), 10
                )
            )
        except (OSError, TimeoutError):
            failed += 1

    await asyncio.gather(*(hold(f"127.0.2.{a}") for a in range(1, 12) for _ in range(100)))
    probes: list[str] = []
    while time.monotonic() < deadline:
        try:
            async with httpx.AsyncClient(timeout=3) as http:
                probes.append(str((await http.get(base + "/healthz")).status_code))
        except httpx.HTTPError as exc:
            probes.append(type(exc).__name__)
        await asyncio.sleep(0.5)
    answers: dict[str, int] = {}
    for reader, writer in held:
        try:
            line = await asyncio.wait_for(reader.readline(), 0.01)
            key = line.decode(errors="replace").strip()[:12] or "closed"
        except (TimeoutError, OSError, ConnectionError):
            key = "still open"
        answers[key] = answers.get(key, 0) + 1
        writer.close()
    return {
        "opened": len(held),
        "connect_failed": failed,
        "idle_ones": answers,
        "healthz": {k: probes.count(k) for k in set(probes)},
    }


async def attack_creates(base: str, deadline: float, addresses: int = 20) -> dict[str, Any]:
    """28.6: 20 addresses creating tables as fast as they can."""
    answers: dict[str, int] = {}

    async def one(local: str) -> None:
        async with attacker_client(base, local=local) as http:
            while time.monotonic() < deadline:
                try:
                    r = await http.post("/api/tables", json={"name": "Ann"})
                    key = str(r.status_code)
                except httpx.HTTPError as exc:
                    key = type(exc).__name__
                answers[key] = answers.get(key, 0) + 1

    await asyncio.gather(*(one(f"127.0.3.{a}") for a in range(1, addresses + 1)))
    return {"answers": answers}


# --- issue 41 (items 2-4): replays, card orders, a stall between hands -----------------------
ISSUE_41 = ("replay_flood", "arrange_flood", "ready_stall")
REPLAYERS = ("127.0.0.2", "127.0.0.3")


async def attack_replay_flood(base: str, deadline: float, tables: list[str]) -> dict[str, Any]:
    """41.3: two addresses each fetching replay pages of finished hands at 18 a second
    (under the 20 a second per address), cycling over the hands of `tables`."""
    answers: dict[str, int] = {}
    period = 1 / 18

    async def one(local: str) -> None:
        async with attacker_client(base, local=local) as http:
            n, next_at = 0, time.monotonic()
            while time.monotonic() < deadline:
                table_id = tables[n % len(tables)]
                n += 1
                try:
                    key = str((await http.get(f"/t/{table_id}/hands/1")).status_code)
                except httpx.HTTPError as exc:
                    key = type(exc).__name__
                answers[key] = answers.get(key, 0) + 1
                next_at += period
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    started = time.monotonic()
    await asyncio.gather(*(one(a) for a in REPLAYERS))
    elapsed = max(0.001, time.monotonic() - started)
    return {
        "hands": len(tables),
        "answers": answers,
        "per_s": round(sum(answers.values()) / elapsed, 1),
    }


async def play_record(base: str, record: dict[str, Any], local: str = "127.0.0.1") -> str:
    """A table dealt `record`'s deck (seat 0 deals), its hand played through both
    seats' sockets as the record says; its id."""
    async with attacker_client(base, local=local) as http:
        made = await http.post(
            "/api/tables",
            json={"name": "Rev", "test_decks": [record["deck"]], "test_first_dealer": 0},
        )
        made.raise_for_status()
        table_id: str = made.json()["table_id"]
        joined = (await http.post(f"/api/tables/{table_id}/seats", json={})).json()
    seats = [
        await open_seat(base, table_id, made.json()["token"], 0, local),
        await open_seat(base, table_id, joined["token"], 1, local),
    ]
    versions = [state["version"] for _, state in seats]
    try:
        for n, entry in enumerate(record["actions"]):
            seat = entry["seat"]
            ws = seats[seat][0]
            while versions[seat] < 1 + n:
                message = orjson.loads(await asyncio.wait_for(ws.recv(), 30))
                if message.get("type") == "state":
                    versions[seat] = message["version"]
            frame = {"type": "action", "version": versions[seat], "action": entry["action"]}
            await ws.send(orjson.dumps(frame).decode())
            await asyncio.sleep(0.06)  # under the per-connection message rate
        while versions[0] < 1 + len(record["actions"]):
            message = orjson.loads(await asyncio.wait_for(seats[0][0].recv(), 30))
            if message.get("type") == "state":
                versions[0] = message["version"]
    finally:
        for ws, _ in seats:
            await ws.close()
    return table_id


async def poll_review(http: httpx.AsyncClient, url: str, every: float, bound: float) -> float:
    """Ask for a review every `every` seconds until it comes; seconds it took (inf: not
    within `bound`)."""
    started = time.monotonic()
    while time.monotonic() - started < bound:
        with contextlib.suppress(httpx.HTTPError):
            if (await http.get(url)).status_code == 200:
                return time.monotonic() - started
        await asyncio.sleep(every)
    return float("inf")


async def attack_review_flood(
    base: str, deadline: float, flood: list[str], victim: tuple[str, str]
) -> dict[str, Any]:
    """41.1: the victim's review alone (its first table), then under the flood (its
    second table, the same hand): 127.0.0.2 polls the 28 keys of `flood` at 10 a second
    until the victim's review has come."""
    # Until the victim's review comes, or 50 s past the deadline (the run stops an
    # attack 60 s past it): `--seconds 300` leaves the version before issue 41 room.
    async with attacker_client(base, local="127.0.0.1") as http:
        url = f"/api/tables/{victim[0]}/hands/1/review?seat=1"
        alone = await poll_review(http, url, 1.0, max(30.0, deadline - time.monotonic() + 50))
    keys = [f"/api/tables/{t}/hands/1/review?seat={s}" for t in flood for s in (0, 1)]
    came: dict[str, float] = {}
    answers: dict[str, int] = {}
    stop = asyncio.Event()

    async def attacker() -> None:
        async with attacker_client(base) as http:
            n, next_at = 0, time.monotonic()
            while not stop.is_set():
                key = keys[n % len(keys)]
                n += 1
                if key not in came:
                    try:
                        status = str((await http.get(key)).status_code)
                    except httpx.HTTPError as exc:
                        status = type(exc).__name__
                    answers[status] = answers.get(status, 0) + 1
                    if status == "200":
                        came[key] = time.monotonic()
                next_at += 0.1
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    flooding = asyncio.create_task(attacker())
    await asyncio.sleep(2.0)  # the flood is on
    async with attacker_client(base, local="127.0.0.1") as http:
        started = time.monotonic()
        url = f"/api/tables/{victim[1]}/hands/1/review?seat=1"
        took = await poll_review(http, url, 1.0, max(10.0, deadline - time.monotonic() + 50))
    arrived = started + took
    stop.set()
    await flooding
    return {
        "victim_alone_s": round(alone, 1),
        "victim_flooded_s": round(took, 1),  # inf: not before the run's end
        "goal_s": round(2 * alone + 10, 1),
        "attacker_before_victim": sum(1 for t in came.values() if t <= arrived),
        "attacker_answers": answers,
    }


async def attack_arrange_flood(base: str, deadline: float, tables: int = 4) -> dict[str, Any]:
    """41.4: 40 sockets from one address (4 tables x 2 seats x 5 tabs, the most a seat
    may have) each sending `arrange` 8 times a second."""
    made = []
    async with attacker_client(base) as http:
        for _ in range(tables):
            table = (await http.post("/api/tables", json={"name": "Ann"})).json()
            joined = (await http.post(f"/api/tables/{table['table_id']}/seats", json={})).json()
            made.append((table["table_id"], table["token"], joined["token"]))
    sent, errors = 0, 0

    async def arranger(table_id: str, token: str, seat: int, n: int) -> None:
        nonlocal sent, errors
        ws, state = await open_seat(base, table_id, token, seat, ATTACKER)
        rng = random.Random(n)

        async def drain() -> None:
            nonlocal errors
            with contextlib.suppress(Exception):
                async for raw in ws:
                    errors += b'"error"' in (raw if isinstance(raw, bytes) else raw.encode())

        reader = asyncio.create_task(drain())
        cards = list(state["hand"]["my_cards"])
        next_at = time.monotonic()
        try:
            while time.monotonic() < deadline:
                rng.shuffle(cards)
                await ws.send(orjson.dumps({"type": "arrange", "cards": cards}).decode())
                sent += 1
                next_at += 1 / 8
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        finally:
            reader.cancel()
            await ws.close()

    sockets = [
        arranger(table_id, token, seat, 10 * t + k)
        for t, (table_id, *tokens) in enumerate(made)
        for seat, token in enumerate(tokens)
        for k in range(5)
    ]
    started = time.monotonic()
    await asyncio.gather(*sockets, return_exceptions=True)
    elapsed = max(0.001, time.monotonic() - started)
    return {"sockets": len(sockets), "arranges_per_s": round(sent / elapsed), "errors": errors}


async def attack_ready_stall(base: str, deadline: float) -> dict[str, Any]:
    """41.2: a table on a 15 s clock whose hand is played to its end; one seat sends
    `next_hand`, the other stays connected and sends nothing, ever. How long until the
    waiting seat may claim (before issue 41: never, `--seconds` bounds it, at least 60)?"""
    async with attacker_client(base) as http:
        # Game scoring to 250: the first hand does not end the match.
        body = {"name": "Ann", "turn_seconds": 15, "scoring": "game", "target": 250}
        made = (await http.post("/api/tables", json=body)).json()
        joined = (await http.post(f"/api/tables/{made['table_id']}/seats", json={})).json()
    table_id = made["table_id"]
    waiter, w_state = await open_seat(base, table_id, made["token"], 0, ATTACKER)
    staller, s_state = await open_seat(base, table_id, joined["token"], 1, ATTACKER)
    states = [w_state, s_state]
    socks = [waiter, staller]
    rng = random.Random(41)
    end = max(deadline, time.monotonic() + 60)
    waited_from = None
    found: dict[str, Any] = {"claim_open_after_s": None}

    async def read(i: int, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            message = orjson.loads(await asyncio.wait_for(socks[i].recv(), timeout))
            if message.get("type") == "state":
                states[i] = message

    try:
        # Both play the first hand to its end (the staller too: it stalls between hands),
        # each move followed by both seats' states for it.
        while states[0]["table"]["status"] == "playing" and time.monotonic() < end:
            version = max(st["version"] for st in states)
            mover = next(
                (
                    i
                    for i in (0, 1)
                    if playable(states[i]["legal"]) and states[i]["version"] == version
                ),
                None,
            )
            if mover is None:
                await asyncio.gather(read(0, 0.05), read(1, 0.05))
                continue
            action = sensible(states[mover], rng)
            await socks[mover].send(
                orjson.dumps({"type": "action", "version": version, "action": action}).decode()
            )
            for i in (0, 1):
                while states[i]["version"] <= version and time.monotonic() < end:
                    await read(i, 1.0)
            await asyncio.sleep(0.11)  # under the per-connection message rate
        found["first_hand_over"] = states[0]["table"]["status"]
        ready = "new_match" if states[0]["table"]["status"] == "match_over" else "next_hand"
        await waiter.send(
            orjson.dumps(
                {"type": "action", "version": states[0]["version"], "action": {"kind": ready}}
            ).decode()
        )
        waited_from = time.monotonic()
        # The staller reads (it is connected) and never acts; the waiter plays its turns.
        while time.monotonic() < end:
            await asyncio.gather(read(0, 0.2), read(1, 0.01))
            kinds = {a["kind"] for a in states[0]["legal"]}
            if "claim" in kinds:
                found["claim_open_after_s"] = round(time.monotonic() - waited_from, 1)
                break
            if states[0]["table"]["status"] == "playing" and playable(states[0]["legal"]):
                action = sensible(states[0], rng)
                version = states[0]["version"]
                await waiter.send(
                    orjson.dumps({"type": "action", "version": version, "action": action}).decode()
                )
                await asyncio.sleep(0.11)
        players = states[0]["table"]["players"]
        found["staller_timeouts"] = players[1].get("timeouts")
        found["status"] = states[0]["table"]["status"]
        if found["claim_open_after_s"] is None and waited_from is not None:
            found["still_waiting_after_s"] = round(time.monotonic() - waited_from, 1)
    finally:
        for ws in socks:
            await ws.close()
    return found


# --- the run --------------------------------------------------------------------------------
def summary(samples: list[float]) -> tuple[float, float]:
    if not samples:
        return float("nan"), float("nan")
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return statistics.median(ordered), p99


async def run(
    root: Path, seconds: float, only: set[str], proxy: bool = False, attacker_nice: int = 0
) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gin-abuse-") as tmp:
        data = Path(tmp) / "tables.sqlite3"
        with scaled(root) if proxy else server_only(root, data) as (base, proc, scale):
            plan: list[tuple[str, Callable[[float], Any]]] = []
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                spare = (await http.post("/api/tables", json={"name": "Page"})).json()
            reviewed = await finish_hands(base, 10) if not only or "reviews" in only else []
            replayed = await finish_hands(base, 4) if not only or "replay_flood" in only else []
            flood_tables: list[str] = []
            victim_tables: tuple[str, str] = ("", "")
            if not only or "review_flood" in only:
                # 14 finished hands of the attacker's (28 review keys, as in the issue) and
                # the victim's one hand twice: its review alone, then under the flood.
                flood_tables = [await play_record(base, UNDERCUT, ATTACKER) for _ in range(14)]
                victim_tables = (
                    await play_record(base, UNDERCUT),
                    await play_record(base, UNDERCUT),
                )
            names: dict[str, Callable[[float], Any]] = {
                "computer": lambda d: attack_computer(base, d),
                "bodies": lambda d: attack_bodies(base, d),
                "pages": lambda d: attack_pages(base, d, spare["table_id"]),
                "churn": lambda d: attack_churn(base, d, spare["table_id"]),
                "bounce": lambda d: attack_bounce(base, d, scale),
                "slowbody": lambda d: attack_slowbody(base, d),
                "creates": lambda d: attack_creates(base, d),
            }
            if proxy:
                names["slowconn"] = lambda d: attack_slowconn(base, d)
            else:
                names["arrange"] = lambda d: attack_arrange(base, d, data)
                names["files"] = lambda d: attack_files(base, d)
                # Last: before issue 14 it could leave the server without files for a while.
                names["headers"] = lambda d: attack_headers(base, d)
            # Issue 41 (items 2-4).
            names["replay_flood"] = lambda d: attack_replay_flood(base, d, replayed)
            names["arrange_flood"] = lambda d: attack_arrange_flood(base, d)
            names["ready_stall"] = lambda d: attack_ready_stall(base, d)
            names["review_flood"] = lambda d: attack_review_flood(
                base, d, flood_tables, victim_tables
            )
            # After all: reviews left computing at its deadline go on in the pool.
            names["reviews"] = lambda d: attack_reviews(base, d, reviewed)
            plan = [("baseline", lambda d: until(d))]
            plan += [(n, f) for n, f in names.items() if not only or n in only]
            # The victim plays until it is stopped (an attack may overrun its deadline).
            total = 3600.0
            victim_proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "benchmarks.bench_abuse",
                "--victim",
                base,
                "--seconds",
                str(total),
                cwd=REPO,
                stdout=asyncio.subprocess.PIPE,
            )
            moves: list[dict[str, Any]] = []

            async def read_victim() -> None:
                assert victim_proc.stdout is not None
                async for line in victim_proc.stdout:
                    with contextlib.suppress(ValueError):
                        move = json.loads(line)
                        if "table_id" in move:
                            VICTIM["table_id"] = move["table_id"]
                            continue
                        moves.append(move)

            reader = asyncio.create_task(read_victim())
            # The victim's table is up and playing.
            warm = time.monotonic() + 60
            while len(moves) < 20 and time.monotonic() < warm:
                await asyncio.sleep(0.2)
            if attacker_nice:
                # The server and the victim started at this process's priority; the
                # attackers (this process from now on) run below them, as on a machine
                # of their own they would not take the server's CPU.
                os.nice(attacker_nice)
            for name, attack in plan:
                rss_before = rss_mib(proc)
                peak = rss_before
                cpu_before, began = cpu_seconds(proc), time.monotonic()
                start = time.time()
                deadline = time.monotonic() + seconds
                task = asyncio.create_task(attack(deadline))
                while not task.done():
                    await asyncio.sleep(0.2)
                    with contextlib.suppress(psutil.Error):
                        peak = max(peak, rss_mib(proc))
                    if time.monotonic() > deadline + 60:
                        task.cancel()
                try:
                    seen = await task
                except BaseException as exc:
                    seen = {"error": repr(exc)[:80]}
                end = time.time()
                # The server's CPU over the attack, in % of one core: what it cost the
                # server, whatever else the machine was doing.
                cpu = (cpu_seconds(proc) - cpu_before) / max(0.001, time.monotonic() - began)
                await asyncio.sleep(3)  # let it settle
                window = [m for m in moves if start <= m["t"] <= end]
                latencies = [m["ms"] for m in window if "ms" in m]
                median, p99 = summary(latencies)
                with contextlib.suppress(psutil.Error):
                    after = rss_mib(proc)
                results.append(
                    {
                        "attack": name,
                        "moves": len(latencies),
                        "timeouts": sum(1 for m in window if m.get("timeout")),
                        "median_ms": round(median, 1),
                        "p99_ms": round(p99, 1),
                        "rss_peak_mib": round(peak - rss_before, 1),
                        "rss_kept_mib": round(after - rss_before, 1),
                        "server_cpu_pct": round(100 * cpu),
                        # The machine's load over the last minute, as the attack ended.
                        "load": round(os.getloadavg()[0], 2),
                        "seen": seen if isinstance(seen, dict) else {},
                    }
                )
                say(f"{name}: {results[-1]}")
            with contextlib.suppress(ProcessLookupError):
                victim_proc.terminate()
                await victim_proc.wait()
            reader.cancel()
    return results


def report(results: list[dict[str, Any]], label: str) -> None:
    base = next(r for r in results if r["attack"] == "baseline")
    goal = 2 * base["p99_ms"] + 20
    print(f"\n{label}: victim move latency (one move per 100 ms), goal p99 <= {goal:.0f} ms")
    print(
        f"{'attack':<13} {'moves':>5} {'median':>8} {'p99':>8} {'to':>3} "
        f"{'RSS peak':>9} {'kept':>7} {'cpu%':>5} {'load':>5}  what the attacker saw"
    )
    for r in results:
        print(
            f"{r['attack']:<13} {r['moves']:>5} {r['median_ms']:>6.1f}ms {r['p99_ms']:>6.1f}ms "
            f"{r['timeouts']:>3} {r['rss_peak_mib']:>+7.1f}M {r['rss_kept_mib']:>+6.1f}M "
            f"{r.get('server_cpu_pct', -1):>5} {r.get('load', float('nan')):>5.2f}  "
            f"{json.dumps(r['seen'])}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=12.0, help="per attack")
    parser.add_argument("--commit", help="run the server of this commit (e.g. the one before)")
    parser.add_argument("--only", default="", help="comma-separated attacks")
    parser.add_argument("--victim", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument(
        "--attacker-nice",
        type=int,
        default=0,
        help="lower the attackers' priority by this much once the server and victim run "
        "(on a shared machine, so the attackers' own CPU does not count against the server)",
    )
    parser.add_argument(
        "--proxy", action="store_true", help="two workers behind the shipped HAProxy config"
    )
    args = parser.parse_args()
    if args.victim:
        asyncio.run(victim(args.victim, args.seconds))
        return 0
    only = {n.strip() for n in args.only.split(",") if n.strip()}
    with tempfile.TemporaryDirectory(prefix="gin-abuse-src-") as tmp:
        root = export(args.commit, Path(tmp)) if args.commit else REPO
        label = f"commit {args.commit}" if args.commit else "this tree"
        label += " behind HAProxy (2 workers, PostgreSQL)" if args.proxy else ""
        results = asyncio.run(run(root, args.seconds, only, args.proxy, args.attacker_nice))
    report(results, label)
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
