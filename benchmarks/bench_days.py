"""Tables played over days at scale, with Web Push: many correspondence tables whose
seats each have a subscription, each seat moving about once a minute, and a few live
tables played alongside.

Run (a quiet machine; about 4 minutes of setup for 10,000 tables, then the hold):

    python -m benchmarks.bench_days --tables 10000 --hold 90
    python -m benchmarks.bench_days --tables 10000 --hold 90 --no-push   # the same, no push
    python -m benchmarks.bench_days --tables 300 --hold 20 --live-hold 10   # a check

Set-up: `python -m hollywood_gin` on a fresh SQLite file (`serve.app_server`, the
per-address limits lifted), push on (`HOLLYWOOD_GIN_VAPID_SUBJECT`) with one allowed
push service: a stand-in on loopback in a process of its own that answers 201 and
notes when each message came. Each correspondence table (`move_days` 1) has both
seats joined and a subscription each. A seat "moves" the way a player answers a
notification: it opens a socket, says hello with its token, plays what is asked of
it (draw and discard, or pass, next hand, new match), and closes the socket; so the
other seat, with no page open, is sent a push. Each table's seat to act visits
after 15 to 45 s (uniform; a seat about once a minute: T tables, about T/30 visits
a second), the first visits spread over the first 30 s. Bounded: `--hold` seconds
measured after that ramp, then everything stops by itself. `--no-push` makes the
tables without subscriptions: the same moves with no pushes, to compare.

Printed, each line with `os.getloadavg()`:

- memory per table: the server's RSS (its push worker apart) before and after the
  tables were made, over the tables;
- a live table's move latency (its own socket's round trip: action sent, new
  version back), p50/p99/max, with the live tables alone, then again while the
  correspondence tables move and their pushes go out;
- visits per second and a visit's duration; the server's CPU (its process, and its
  push worker's) per second and per visit;
- the push queue's latency: from the moment the mover's socket got its new state
  (the push is queued in that change) to the push service stand-in getting the
  message, p50/p99/max, and how many of the expected pushes came; the push worker's
  CPU over the hold per push due in it.

The load generator is one process; its own CPU is printed, so a figure that is the
client's limit says so.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import bisect
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson
import psutil
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from websockets.asyncio.client import connect

from benchmarks.compat import playable
from benchmarks.rawhttp import RawHttp
from benchmarks.serve import app_server

ACTION_TIMEOUT = 15.0


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"p50 {pct(values, 0.5) * 1e3:.1f} ms, p99 {pct(values, 0.99) * 1e3:.1f} ms,"
        f" max {max(values) * 1e3:.1f} ms (n={len(values)})"
    )


# --- the push service stand-in (a process of its own) -------------------------------


def push_service(port: Any, arrivals: Any, stop: Any) -> None:
    """Answers 201 to every POST, noting (time, path) of each; sends them on `stop`."""
    seen: list[tuple[float, str]] = []

    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                length = 0
                for line in lines[1:]:
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                seen.append((time.time(), lines[0].split()[1].decode()))
                writer.write(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(one, "127.0.0.1", 0)
        port.value = server.sockets[0].getsockname()[1]
        while not stop.is_set():
            await asyncio.sleep(0.2)
        server.close()
        arrivals.send(seen)

    asyncio.run(main())


# --- the tables ----------------------------------------------------------------------


@dataclass
class Seat:
    token: str
    number: int


@dataclass
class Days:
    table_id: str
    seats: list[Seat]
    who: int = 0  # the seat asked to act next, as last seen


@dataclass
class Run:
    base: str
    visits: list[float] = field(default_factory=list)  # duration of each visit
    visit_errors: int = 0
    empty_visits: int = 0
    # (table_id, seat) -> times (time.time()) a push was due to it: the mover's new state.
    due: dict[tuple[str, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    live: list[float] = field(default_factory=list)
    live_errors: int = 0
    measuring: bool = False


def subscription_keys() -> dict[str, str]:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    raw = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    return {"p256dh": b64(raw), "auth": b64(os.urandom(16))}


async def make_table(
    client: RawHttp, days: int | None, origin: str | None, keys: dict[str, str]
) -> Days:
    body: dict[str, Any] = {"name": "Ann"}
    if days is not None:
        body["move_days"] = days
    status, made = await client.request("POST", "/api/tables", body)
    assert status == 201, made
    table_id, ann = made["table_id"], made["token"]
    status, joined = await client.request("POST", f"/api/tables/{table_id}/seats", {"name": "Bob"})
    assert status == 201, joined
    seats = [Seat(ann, 0), Seat(joined["token"], 1)]
    if origin is not None:
        for seat in seats:
            sub = {"endpoint": f"{origin}/p/{table_id}/{seat.number}", "keys": keys}
            status, answer = await client.request(
                "POST", f"/api/tables/{table_id}/push", sub, token=seat.token
            )
            assert status == 201, answer
    return Days(table_id, seats)


async def make_all(
    base: str, count: int, days: int | None, origin: str | None, parallel: int = 8
) -> list[Days]:
    """`count` tables made over `parallel` kept-alive connections (`RawHttp`: the
    client's CPU, not the server's, bounded this set-up with httpx)."""
    keys = subscription_keys()
    left = iter(range(count))
    made: list[Days] = []

    async def connection() -> None:
        client = RawHttp(base)
        try:
            for _ in left:
                made.append(await make_table(client, days, origin, keys))
        finally:
            await client.close()

    await asyncio.gather(*(connection() for _ in range(parallel)))
    return made


def ws_url(base: str, table_id: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/tables/{table_id}"


async def next_state(ws: Any, above: int) -> dict[str, Any]:
    while True:
        msg = orjson.loads(await asyncio.wait_for(ws.recv(), ACTION_TIMEOUT))
        # (the first state may come before the hello's: a spectator's)
        if msg["type"] == "state" and msg["version"] > above and msg["you"] is not None:
            return dict(msg)
        if msg["type"] == "error" and msg.get("code") != "stale_version":
            raise RuntimeError(msg)


def asked(state: dict[str, Any], me: int) -> int:
    """Who is asked next, after `me`'s visit (the seat with a deadline, not me first)."""
    waiting = [p["seat"] for p in state["table"]["players"] if p.get("deadline") is not None]
    others = [s for s in waiting if s != me]
    return others[0] if others else (waiting[0] if waiting else 1 - me)


async def visit(run: Run, table: Days, rng: random.Random) -> bool:
    """A player answering a notification: open, play what is asked, close. False:
    nothing was asked of that seat (the next visit is the other's)."""
    seat = table.seats[table.who]
    began = time.perf_counter()
    acted = False
    try:
        async with connect(ws_url(run.base, table.table_id), compression=None) as ws:
            await ws.send(orjson.dumps({"type": "hello", "token": seat.token}).decode())
            state = await next_state(ws, -1)
            for _ in range(4):
                legal = playable(state["legal"])
                if not legal:
                    break
                knocks = [a for a in legal if a["kind"] == "knock"]
                action = knocks[0] if knocks and rng.random() < 0.5 else rng.choice(legal)
                action = {k: v for k, v in action.items() if k != "deadwood"}
                message = {"type": "action", "version": state["version"], "action": action}
                await ws.send(orjson.dumps(message).decode())
                state = await next_state(ws, state["version"])
                acted = True
            done = time.time()
    except (OSError, RuntimeError, TimeoutError) as exc:
        run.visit_errors += 1
        if run.visit_errors <= 3:
            say(f"visit failed: {exc!r}")
        table.who = 1 - table.who
        return True
    if not acted:
        run.empty_visits += 1
        table.who = 1 - table.who
        return False
    table.who = asked(state, seat.number)
    if run.measuring:
        run.visits.append(time.perf_counter() - began)
        run.due[(table.table_id, 1 - seat.number)].append(done)
    return True


async def days_player(run: Run, table: Days, rng: random.Random, until: float) -> None:
    await asyncio.sleep(rng.uniform(0, 30))
    while time.monotonic() < until:
        if not await visit(run, table, rng):
            await visit(run, table, rng)  # the other seat was asked: it visits now
        await asyncio.sleep(rng.uniform(15, 45))


async def live_player(run: Run, table: Days, rng: random.Random, until: float) -> None:
    """Both seats of a live table connected all along, each acting 1.5 to 4 s after it
    is asked; each move's round trip measured while `run.measuring`."""
    socks = []
    for seat in table.seats:
        ws = await connect(ws_url(run.base, table.table_id), compression=None)
        await ws.send(orjson.dumps({"type": "hello", "token": seat.token}).decode())
        socks.append(ws)
    states = [await next_state(ws, -1) for ws in socks]
    try:
        while time.monotonic() < until:
            moved = False
            for i, ws in enumerate(socks):
                legal = playable(states[i]["legal"])
                if not legal:
                    continue
                await asyncio.sleep(rng.uniform(1.5, 4.0))
                action = rng.choice(legal)
                action = {k: v for k, v in action.items() if k != "deadwood"}
                v = max(s["version"] for s in states)
                message = {"type": "action", "version": v, "action": action}
                sent = time.perf_counter()
                await ws.send(orjson.dumps(message).decode())
                states[i] = await next_state(ws, v)
                if run.measuring:
                    run.live.append(time.perf_counter() - sent)
                other = socks[1 - i]
                states[1 - i] = await next_state(other, states[1 - i]["version"])
                moved = True
                break
            if not moved:
                await asyncio.sleep(0.2)
    except (OSError, RuntimeError, TimeoutError) as exc:
        run.live_errors += 1
        say(f"live table failed: {exc!r}")
    finally:
        for ws in socks:
            await ws.close()


def cpu_of(process: psutil.Process) -> float:
    t = process.cpu_times()
    return float(t.user + t.system)


def family(server: psutil.Process) -> tuple[float, float, int, int]:
    """CPU seconds of the server and of its children (the push worker), and their RSS."""
    children = server.children(recursive=True)
    kids_cpu = sum(cpu_of(c) for c in children)
    kids_rss = sum(c.memory_info().rss for c in children)
    return cpu_of(server), kids_cpu, server.memory_info().rss, kids_rss


def push_latencies(run: Run, seen: list[tuple[float, str]]) -> tuple[list[float], int]:
    """Each arrival paired with the latest push due to its seat before it."""
    got: list[float] = []
    for at, path in seen:
        parts = path.split("/")  # /p/{table}/{seat}
        times = run.due.get((parts[2], int(parts[3])))
        if not times:
            continue
        i = bisect.bisect_right(times, at + 0.005) - 1  # (clocks of one machine)
        if i >= 0:
            got.append(max(0.0, at - times[i]))
    return got, sum(len(t) for t in run.due.values())


async def main_async(args: argparse.Namespace) -> None:
    spawn = multiprocessing.get_context("spawn")
    port, stop = spawn.Value("i", 0), spawn.Event()
    mine, theirs = spawn.Pipe(duplex=False)
    service = spawn.Process(target=push_service, args=(port, theirs, stop), daemon=True)
    service.start()
    while not port.value:
        await asyncio.sleep(0.05)
    origin = f"http://127.0.0.1:{port.value}"
    env = {
        "HOLLYWOOD_GIN_VAPID_SUBJECT": "mailto:bench@example.org",
        "HOLLYWOOD_GIN_PUSH_SERVICES": origin,
        "HOLLYWOOD_GIN_MAX_LIVE_TABLES": "10000000",
    }
    me = psutil.Process()
    with app_server(env) as (base, proc):
        server = psutil.Process(proc.pid)
        run = Run(base)
        _cpu, _kcpu, rss0, _krss = family(server)
        subs = "no subscriptions" if args.no_push else "2 subscriptions each"
        say(f"making {args.tables} correspondence tables with {subs} ...")
        began = time.perf_counter()
        tables = await make_all(base, args.tables, 1, None if args.no_push else origin)
        live = await make_all(base, args.live, None, None)
        made = time.perf_counter() - began
        _cpu, _kcpu, rss1, _krss = family(server)
        print(
            f"{args.tables} tables made in {made:.0f} s; server RSS {rss0 / 2**20:.0f} →"
            f" {rss1 / 2**20:.0f} MiB: {(rss1 - rss0) / args.tables / 1024:.1f} KiB a table"
            f"  [{load()}]",
            flush=True,
        )
        rng = random.Random(args.seed)
        total = 30 + args.live_hold + 30 + args.hold + 30
        until = time.monotonic() + total
        live_tasks = [
            asyncio.create_task(live_player(run, t, random.Random(rng.random()), until))
            for t in live
        ]
        await asyncio.sleep(5)
        # Phase 1: the live tables alone.
        run.measuring = True
        await asyncio.sleep(args.live_hold)
        run.measuring = False
        alone = list(run.live)
        print(f"live moves, alone: {spread(alone)}  [{load()}]", flush=True)
        # Phase 2: the correspondence tables move too (a ramp of 30 s), then the hold.
        run.live.clear()
        days_until = time.monotonic() + 30 + args.hold
        days_tasks = [
            asyncio.create_task(days_player(run, t, random.Random(rng.random()), days_until))
            for t in tables
        ]
        await asyncio.sleep(30)
        cpu0, kcpu0, _rss, _krss = family(server)
        mine0, wall0 = cpu_of(me), time.perf_counter()
        run.measuring = True
        await asyncio.sleep(args.hold)
        run.measuring = False
        wall = time.perf_counter() - wall0
        cpu1, kcpu1, rss2, krss2 = family(server)
        client_cpu = (cpu_of(me) - mine0) / wall
        visits = len(run.visits)
        print(
            f"while {args.tables} tables move over days: {visits / wall:.0f} visits/s (one"
            f" visit: {spread(run.visits)}), {run.visit_errors} failed, {run.empty_visits}"
            f" found nothing to do  [{load()}]",
            flush=True,
        )
        server_cpu, push_cpu = (cpu1 - cpu0) / wall, (kcpu1 - kcpu0) / wall
        per_visit = (cpu1 - cpu0 + kcpu1 - kcpu0) / max(1, visits) * 1e3
        print(
            f"server CPU {server_cpu:.2f} s/s, its push worker {push_cpu:.2f} s/s:"
            f" {per_visit:.2f} ms a visit, {(server_cpu + push_cpu) / args.tables * 1e6:.0f}"
            f" µs/s a table; RSS {rss2 / 2**20:.0f} MiB + worker {krss2 / 2**20:.0f} MiB;"
            f" the load generator {client_cpu:.2f} s/s  [{load()}]",
            flush=True,
        )
        print(f"live moves, with pushes going out: {spread(run.live)}  [{load()}]", flush=True)
        print(
            f"live moves: p50 {pct(alone, 0.5) * 1e3:.1f} → {pct(run.live, 0.5) * 1e3:.1f} ms,"
            f" p99 {pct(alone, 0.99) * 1e3:.1f} → {pct(run.live, 0.99) * 1e3:.1f} ms;"
            f" {run.live_errors} live tables failed  [{load()}]",
            flush=True,
        )
        await asyncio.sleep(5)  # the last pushes of the hold go out
        for task in days_tasks + live_tasks:
            task.cancel()
        await asyncio.gather(*days_tasks, *live_tasks, return_exceptions=True)
    stop.set()
    seen: list[tuple[float, str]] = mine.recv() if mine.poll(30) else []
    service.join(timeout=10)
    latencies, due = push_latencies(run, seen)
    print(
        f"push queue latency (new state → the push service has it): {spread(latencies)};"
        f" {len(latencies)} of {due} pushes due in the hold came  [{load()}]",
        flush=True,
    )
    if latencies:
        print(f"  mean {statistics.mean(latencies) * 1e3:.1f} ms  [{load()}]", flush=True)
    if due:
        print(
            f"the push worker's CPU a push: {(kcpu1 - kcpu0) / due * 1e3:.3f} ms"
            f" ({due} pushes due in the hold)  [{load()}]",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=10_000, help="correspondence tables")
    parser.add_argument("--live", type=int, default=10, help="live tables measured alongside")
    parser.add_argument("--hold", type=float, default=90.0, help="seconds measured, all moving")
    parser.add_argument("--live-hold", type=float, default=30.0, help="seconds, live alone")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-push", action="store_true", help="no subscriptions: the same moves, no pushes"
    )
    args = parser.parse_args()
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
