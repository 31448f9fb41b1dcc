"""Capacity at human pace: how many tables one core holds, ours and two peers', one run.

Run (a quiet machine; ~6 min for ours, ~15 min with the peers, which need node + npm):

    pip install -e '.[bench]' && python -m benchmarks.bench_capacity
    python -m benchmarks.bench_capacity --systems ours --steps 50,100 --hold 10   # a check

Set-up, as a host runs it: `hollywood-gin serve` pinned to one core (`taskset`), SQLite
(a fresh file), the per-address limits raised through the settings (`serve.LOAD_ENV`)
so that the load may come from one address (127.0.0.1). A load generator of its own
process, pinned to the other core, plays both seats of every table: each seat, once a
state asks it to act, acts 1.5 to 4 s later (uniformly), and each socket sends the
page's heartbeat (`ping` every 25 s, `static/js/socket.js`). The tables ramp up
step by step (`--steps`, default 1,000, 2,000, 4,000, 8,000, 16,000): a step adds
tables to those already playing, lets them settle (`--settle`), then holds
`--hold` seconds (default 45) and prints:

- moves/s, and a move's latency p50 / p99 / max (from its send to both seats holding
  the new version), errors (error frames other than `stale_version`, timeouts of
  10 s, dropped sockets, pongs missing after 10 s);
- the server's RSS and CPU (CPU-seconds per second of all its threads; 1.0 = the core);
- the load generator's own CPU and lateness (how late its timers fired, p99 and max),
  so that a figure is never the client's limit: a step whose client used 0.9 of its
  core or ran 100 ms late says so;
- `os.getloadavg()`.

The ramp stops after a step with p99 over `--stop-p99` (1 s) or any error. Then the
same load, same pace and same steps against boardgame.io and Colyseus
(`benchmarks/peers`: a two-seat card game of draw-then-discard with our frame sizes,
their own client libraries). Last line: the tables each system held with p99 at most
`--goal-p99` (100 ms), and the ratio to ours.

Connections: a step of T tables opens 2T sockets from 127.0.0.1 to one port, so it
needs 2T free ephemeral ports (`/proc/sys/net/ipv4/ip_local_port_range`, 28,232 by
default: 14,000 tables at most); a step past that is not run and says why. The open
files limit of this process tree is raised to what the largest step needs (at most
`MAX_FILES`), for this run only.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from benchmarks.bench_peers import install as install_peers
from benchmarks.bench_peers import until_ready
from benchmarks.compat import playable
from benchmarks.rawsocket import RawSocket, connect, frame
from benchmarks.serve import LOAD_ENV, REPO, app_server, stop

SYSTEMS = ("ours", "boardgame.io", "colyseus")
MAX_FILES = 80_000
PING_SECONDS = 25.0
PONG_WITHIN = 10.0
ACTION_TIMEOUT = 10.0
# A step whose load generator's timers ran later than this (p99) is the client's limit
# (or a busy machine's), not the server's: said so.
CLIENT_LATE_MS = 50.0
# Terms a seat waits before acting, once asked (seconds).
THINK = (1.5, 4.0)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def port_room() -> int:
    """Ephemeral ports this machine hands out for one destination."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(high) - int(low) + 1
    except (OSError, ValueError):
        return 28_232


def raise_files(sockets: int) -> int:
    """Open files of this process tree: enough for `sockets` on each side, bounded."""
    want = min(MAX_FILES, sockets + 4096)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < want:
        try:  # root may raise the hard limit; anyone else keeps what they have
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
        except (ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    elif soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---------------------------------------------------------------- the load generator (ours)


@dataclass
class Window:
    latencies: list[float] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    stale: int = 0

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


class Seat:
    """One seat's socket: acts THINK seconds after a state asks it to."""

    __slots__ = ("legal", "ping_sent", "seat", "sock", "table", "timer", "version")

    def __init__(self, table: TableLoad, seat: int, sock: RawSocket, state: dict[str, Any]) -> None:
        self.table = table
        self.seat = seat
        self.sock = sock
        self.version = int(state["version"])
        self.legal: list[dict[str, Any]] = playable(state["legal"])
        self.timer: asyncio.TimerHandle | None = None
        self.ping_sent: float | None = None

    def received(self, raw: bytes) -> None:
        """A server message (the socket's callback: no task per socket)."""
        if raw.startswith(STATE_HEAD):
            # A state: only its version and `legal` are read (`StateFrames`' layout:
            # the version first, `legal` just before the sheet), not its whole 2 KB.
            at = len(STATE_HEAD)
            version = int(raw[at : raw.index(b",", at)])
            start = raw.rfind(LEGAL_KEY)
            end = raw.find(SHEET_KEY, start)
            if start < 0 or end < 0:  # another layout: the whole message read
                legal = orjson.loads(raw)["legal"]
            else:
                legal = orjson.loads(raw[start + len(LEGAL_KEY) : end])
            if version >= self.version:
                self.version = version
                self.legal = playable(legal)
                self.asked()
                self.table.arrived()
            return
        message = orjson.loads(raw)
        kind = message.get("type")
        run = self.table.run
        if kind == "pong":
            self.ping_sent = None
        elif kind == "error":
            code = message.get("code", "?")
            if code == "stale_version":
                run.window.stale += 1
            else:
                run.window.error(code)

    def lost(self) -> None:
        if not self.table.closing:
            self.table.run.dropped += 1
            self.table.run.window.error("dropped")

    def asked(self) -> None:
        """A fresh state: act on it later if it asks this seat to act."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.legal:
            loop = self.table.run.loop
            delay = self.table.rng.uniform(*THINK)
            due = loop.time() + delay
            self.timer = loop.call_at(due, self.act, due)

    def act(self, due: float) -> None:
        self.timer = None
        run = self.table.run
        run.window.lateness.append(run.loop.time() - due)
        legal = self.legal
        if not legal or self.table.closing:
            return
        rng = self.table.rng
        knocks = [a for a in legal if a["kind"] == "knock"]
        if knocks and rng.random() < 0.5:
            choice = rng.choice(knocks)
        else:
            choice = rng.choice([a for a in legal if a["kind"] != "knock"] or legal)
        version = self.version
        self.table.pending.append((version, time.perf_counter()))
        message = {"type": "action", "version": version, "action": choice}
        self.sock.send(frame(orjson.dumps(message)))


class TableLoad:
    __slots__ = ("closing", "pending", "rng", "run", "seats")

    def __init__(self, run: Driver, key: str) -> None:
        self.run = run
        self.rng = random.Random(key)
        self.seats: list[Seat] = []
        self.pending: list[tuple[int, float]] = []
        self.closing = False

    def arrived(self) -> None:
        if not self.pending or len(self.seats) < 2:
            return
        low = min(s.version for s in self.seats)
        now = time.perf_counter()
        keep = []
        for version, sent in self.pending:
            if low > version:
                self.run.window.latencies.append(now - sent)
            elif now - sent > ACTION_TIMEOUT:
                self.run.window.error("timeout")
            else:
                keep.append((version, sent))
        self.pending = keep


async def posted(http: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A POST's JSON answer, tried again when the connection broke (a busy machine's
    server may drop a keep-alive connection as its request arrives); no cookie kept."""
    import httpx

    for attempt in range(3):
        try:
            answer = await http.post(path, json=body)
            http.cookies.clear()
            result: dict[str, Any] = answer.raise_for_status().json()
            return result
        except httpx.TransportError:
            if attempt == 2:
                raise
            await asyncio.sleep(1)
    raise AssertionError("unreachable")


# Where a state frame's version and `legal` are (`tables.frames.StateFrames`).
STATE_HEAD = b'{"type":"state","version":'
LEGAL_KEY = b',"legal":'
SHEET_KEY = b',"sheet":'

# The page's heartbeat, one frame for every socket (`rawsocket.frame`: sent as is).
PING_FRAME = frame(b'{"type":"ping"}')


class Driver:
    """The load generator of `ours`: ramps the tables, prints a line per step.

    Its cost per seat is kept small so that one core drives 16,000 sockets at human
    pace: raw frames (`rawsocket`: a callback per message, no task per socket or per
    send), one timer per seat's next action, and one heartbeat task for all sockets
    (each in one of `PING_SECONDS` one-second slots) instead of a sleeping task each.
    """

    def __init__(self, base: str, seed: int) -> None:
        self.base = base
        self.ws_base = base.replace("http://", "ws://")
        self.tables: list[TableLoad] = []
        self.window = Window()
        self.rng = random.Random(seed)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.dropped = 0
        self.loop = asyncio.get_running_loop()
        self.slots: list[list[Seat]] = [[] for _ in range(int(PING_SECONDS))]

    async def heartbeat(self) -> None:
        """Every second, the sockets of that second's slot send the page's ping."""
        tick = self.loop.time()
        slot = 0
        while True:
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - self.loop.time()))
            now = time.perf_counter()
            for seat in self.slots[slot]:
                if seat.table.closing:
                    continue
                if seat.ping_sent is not None and now - seat.ping_sent > PONG_WITHIN:
                    self.window.error("no_pong")
                if seat.ping_sent is None:
                    seat.ping_sent = now
                seat.sock.send(PING_FRAME)
            slot = (slot + 1) % len(self.slots)

    async def grow(self, count: int) -> None:
        """`count` more tables, both seats connected and playing."""
        import httpx

        gate = asyncio.Semaphore(32)
        async with httpx.AsyncClient(base_url=self.base, timeout=120) as http:

            async def one(index: int) -> None:
                async with gate:
                    body = await posted(http, "/api/tables", {"name": "Ann"})
                    joined = await posted(http, f"/api/tables/{body['table_id']}/seats", {})
                    tokens = [body["token"], joined["token"]]
                    table = TableLoad(self, f"{body['table_id']}-{index}")
                    url = f"{self.ws_base}/ws/tables/{body['table_id']}"
                    for number, token in enumerate(tokens):
                        table.seats.append(await self.seated(table, number, url, token))
                self.tables.append(table)
                for seat in table.seats:
                    self.slots[self.rng.randrange(len(self.slots))].append(seat)
                    seat.asked()

            start = len(self.tables)
            await asyncio.gather(*(one(start + i) for i in range(count)))

    async def seated(self, table: TableLoad, number: int, url: str, token: str) -> Seat:
        """A seat's socket open, its hello said and its first state in."""
        sock = await connect(url)
        first: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        later: list[bytes] = []  # what came after the first state, before the seat

        def opening(raw: bytes) -> None:
            if first.done():
                later.append(raw)
                return
            message = orjson.loads(raw)
            if message.get("type") == "state" and message.get("you") == number:
                first.set_result(message)

        sock.on_message = opening
        sock.send(frame(orjson.dumps({"type": "hello", "token": token})))
        state = await asyncio.wait_for(first, 120)
        seat = Seat(table, number, sock, state)
        sock.on_message = seat.received
        sock.on_close = seat.lost
        for raw in later:
            seat.received(raw)
        return seat

    async def ramp(self, steps: list[int], hold: float, settle: float) -> None:
        import psutil

        me = psutil.Process()
        beat = self.loop.create_task(self.heartbeat())
        self.tasks.add(beat)
        for target in steps:
            began = time.perf_counter()
            await self.grow(target - len(self.tables))
            say(f"  ours: {target} tables open in {time.perf_counter() - began:.0f} s")
            gc.collect()
            gc.freeze()  # the sockets and tables are no garbage: never walk them again
            await asyncio.sleep(settle)
            self.window = Window()
            stall = [0.0]
            deadline = time.perf_counter() + hold

            async def watch(stall: list[float] = stall, deadline: float = deadline) -> None:
                while time.perf_counter() < deadline:
                    before = time.perf_counter()
                    await asyncio.sleep(0.01)
                    stall[0] = max(stall[0], time.perf_counter() - before - 0.01)

            cpu0 = sum(me.cpu_times()[:2])
            print(f"start {target}", flush=True)
            await watch()
            wall = hold + max(0.0, time.perf_counter() - deadline)
            window = self.window
            late = window.lateness
            result = {
                "tables": target,
                "moves": len(window.latencies),
                "p50_ms": pct(window.latencies, 50) * 1000,
                "p99_ms": pct(window.latencies, 99) * 1000,
                "max_ms": max(window.latencies, default=float("nan")) * 1000,
                "errors": window.errors,
                "stale": window.stale,
                "client_cpu": (sum(me.cpu_times()[:2]) - cpu0) / wall,
                "late_p99_ms": pct(late, 99) * 1000,
                "late_max_ms": max(late, default=float("nan")) * 1000,
                "client_stall_ms": stall[0] * 1000,
            }
            print("end " + json.dumps(result), flush=True)


def drive(base: str, steps: list[int], hold: float, settle: float) -> int:
    import uvloop

    gc.set_threshold(100_000, 50, 1000)

    async def run() -> None:
        await Driver(base, seed=7).ramp(steps, hold, settle)

    uvloop.run(run())
    return 0


# ---------------------------------------------------------------- the bench


def pinned(core: int | None, argv: list[str]) -> list[str]:
    if core is None or shutil.which("taskset") is None:
        return argv
    return ["taskset", "-c", str(core), *argv]


def follow(
    system: str, driver: subprocess.Popen[str], server_pid: int, args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Read the driver's steps, time the server over each hold, stop the ramp when due."""
    import psutil

    server = psutil.Process(server_pid)
    rows: list[dict[str, Any]] = []
    marks = (0.0, 0.0)
    spy: subprocess.Popen[bytes] | None = None
    switches = 0
    assert driver.stdout is not None
    for line in driver.stdout:
        word, _, rest = line.strip().partition(" ")
        if word == "start":
            if args.profile and system == "ours" and int(rest) == args.profile_step:
                spy = start_profile(server_pid, args)
            marks = (sum(server.cpu_times()[:2]), time.perf_counter())
            switches = switches_of(server)
        elif word == "end":
            # JSON has no NaN: node writes null where a window had no move.
            row = {k: float("nan") if v is None else v for k, v in json.loads(rest).items()}
            wall = time.perf_counter() - marks[1]
            row["system"] = system
            row["moves_per_s"] = row["moves"] / wall
            row["server_cpu"] = (sum(server.cpu_times()[:2]) - marks[0]) / wall
            row["server_rss_mb"] = server.memory_info().rss / 2**20
            # Wake-ups: the context switches of all the server's threads, per move.
            row["switches_per_move"] = (switches_of(server) - switches) / max(1, row["moves"])
            row["load"] = os.getloadavg()
            rows.append(row)
            say(line_of(row))
            if spy is not None:
                end_profile(spy, row, args)
                spy = None
            if row["p99_ms"] > args.stop_p99 * 1000 or row["errors"] or row["moves"] == 0:
                say(f"  {system}: ramp stopped after {row['tables']} tables")
                if row["late_p99_ms"] > CLIENT_LATE_MS:
                    say(
                        f"  ({system}: the load generator's timers ran {row['late_p99_ms']:.0f} ms"
                        " late at p99: that step measured the client or a busy machine, not"
                        " the server)"
                    )
                break
    driver.terminate()
    try:
        driver.wait(timeout=30)
    except subprocess.TimeoutExpired:
        driver.kill()
        driver.wait()
    return rows


def switches_of(process: Any) -> int:
    """Context switches, voluntary and not, of all the process's threads."""
    total = 0
    for thread in process.threads():
        try:
            with open(f"/proc/{process.pid}/task/{thread.id}/status") as status:
                for line in status:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[-1])
        except OSError:
            continue
    return total


def start_profile(pid: int, args: argparse.Namespace) -> subprocess.Popen[bytes] | None:
    """py-spy on the server over one step's hold: where its CPU goes at human pace."""
    spy = shutil.which("py-spy")
    if spy is None:
        say("py-spy is not installed (pip install py-spy): no profile")
        return None
    out = args.profile.with_suffix(".speedscope.json")
    record = [spy, "record", "--pid", str(pid), "--rate", "100", "--nonblocking", "--gil"]
    record += ["--duration", str(int(args.hold)), "--format", "speedscope", "-o", str(out)]
    return subprocess.Popen(record, stdout=subprocess.DEVNULL)


def end_profile(
    spy: subprocess.Popen[bytes], row: dict[str, Any], args: argparse.Namespace
) -> None:
    from benchmarks.profile_server import summary

    spy.wait(timeout=args.hold + 60)
    head = (
        f"{row['tables']} tables at human pace, {row['moves_per_s']:.0f} moves/s, server CPU "
        f"{row['server_cpu']:.2f} ({row['server_cpu'] / max(row['moves_per_s'], 1e-9) * 1e6:.0f}"
        f" µs a move), load average {' '.join(f'{x:.1f}' for x in row['load'])}\n\n"
    )
    text = head + summary(args.profile.with_suffix(".speedscope.json"), 60)
    args.profile.with_suffix(".txt").write_text(text + "\n")
    say(f"profile: {args.profile.with_suffix('.txt')}")


def line_of(row: dict[str, Any]) -> str:
    errors = ", ".join(f"{k} {v}" for k, v in row["errors"].items()) or "none"
    load = " ".join(f"{x:.1f}" for x in row["load"])
    return (
        f"| {row['system']} | {row['tables']:,} | {row['moves_per_s']:,.0f} | "
        f"{row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['max_ms']:.0f} | {errors} | "
        f"{row['server_rss_mb']:,.0f} | {row['server_cpu']:.2f} | {row['client_cpu']:.2f} | "
        f"{row['late_p99_ms']:.0f} / {row['late_max_ms']:.0f} | "
        f"{row.get('switches_per_move', float('nan')):.1f} | {load} |"
    )


def run_ours(args: argparse.Namespace, steps: list[int]) -> list[dict[str, Any]]:
    serve = pinned(args.server_core, [sys.executable, "-m", "hollywood_gin", "serve"])
    # The page's own settings otherwise: only the limits one address would meet are lifted.
    env = {"HOLLYWOOD_GIN_MAX_LIVE_TABLES": str(max(steps) + 1000)}
    # A setting tried (`--env HOLLYWOOD_GIN_DATA_FILE_GATHER_SECONDS=0`).
    env.update(item.split("=", 1) for item in args.env)
    with app_server(env, argv=serve) as (base, proc):
        cmd = pinned(
            args.client_core,
            [sys.executable, "-m", "benchmarks.bench_capacity", "--drive", base,
             "--steps", ",".join(map(str, steps)), "--hold", str(args.hold),
             "--settle", str(args.settle)],
        )  # fmt: skip
        driver = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True)
        return follow("ours", driver, proc.pid, args)


def run_peer(
    kind: str, folder: Path, args: argparse.Namespace, steps: list[int]
) -> list[dict[str, Any]]:
    from benchmarks.serve import free_port

    port = free_port()
    server = subprocess.Popen(
        pinned(args.server_core, ["node", "servers.js", f"{kind}-cards", str(port)]),
        cwd=folder,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        until_ready(server, kind)
        cmd = pinned(
            args.client_core,
            ["node", "client.js", f"{kind}-paced", f"http://127.0.0.1:{port}",
             ",".join(map(str, steps)), str(args.hold), str(args.settle)],
        )  # fmt: skip
        driver = subprocess.Popen(cmd, cwd=folder, stdout=subprocess.PIPE, text=True)
        system = "boardgame.io" if kind == "bgio" else "colyseus"
        return follow(system, driver, server.pid, args)
    finally:
        stop(server, timeout=10)


def held(rows: list[dict[str, Any]], goal_ms: float) -> int:
    """The most tables held with p99 within the goal, no error, and a load generator
    on time (a late one measured itself or the machine, not the server; 0: none)."""
    ok = [
        r["tables"]
        for r in rows
        if r["p99_ms"] <= goal_ms and not r["errors"] and r["late_p99_ms"] <= CLIENT_LATE_MS
    ]
    return max(ok, default=0)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", default="1000,2000,4000,8000,16000", help="tables per step")
    parser.add_argument("--hold", type=float, default=45.0, help="seconds measured per step")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds after a step opens")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--stop-p99", type=float, default=1.0, help="seconds: ends a ramp")
    parser.add_argument("--goal-p99", type=float, default=100.0, help="ms: a step held")
    parser.add_argument("--server-core", type=int, default=0)
    parser.add_argument("--client-core", type=int, default=1)
    parser.add_argument("--json", type=Path, help="every row, as JSON")
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE", help="a setting of ours"
    )
    parser.add_argument(
        "--profile", type=Path, help="py-spy ours over one step: FILE.txt, FILE.speedscope.json"
    )
    parser.add_argument("--profile-step", type=int, help="tables of that step (the last)")
    parser.add_argument("--drive", help=argparse.SUPPRESS)
    args = parser.parse_args()
    steps = sorted({int(s) for s in args.steps.split(",")})
    if args.drive:
        return drive(args.drive, steps, args.hold, args.settle)
    room = port_room()
    fit = [s for s in steps if 2 * s <= room - 1000]
    if len(fit) < len(steps):
        say(
            f"steps {[s for s in steps if s not in fit]} not run: 2 sockets a table from one "
            f"address need more than the {room} ephemeral ports of "
            "/proc/sys/net/ipv4/ip_local_port_range"
        )
    steps = fit
    if args.profile_step is None:
        args.profile_step = max(steps)
    files = raise_files(2 * max(steps) + 1000)
    say(f"open files {files}; cores {os.cpu_count()}; load {os.getloadavg()}")
    assert LOAD_ENV  # the limits lifted for one address (benchmarks/serve.py)
    systems = args.systems.split(",")
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        parser.error(f"--systems: unknown {', '.join(unknown)}; known: {', '.join(SYSTEMS)}")
    rows: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="gin-capacity-") as tmp:
        missing = None
        if any(s != "ours" for s in systems):
            say("installing the peers with npm into " + tmp)
            missing = install_peers(Path(tmp))
            if missing:
                say("peers not run: " + missing)
                systems = ["ours"] if "ours" in systems else []
        for system in systems:
            say(f"{system}: steps {steps}, {args.hold:g} s each")
            if system == "ours":
                rows[system] = run_ours(args, steps)
            else:
                kind = "bgio" if system == "boardgame.io" else "colyseus"
                rows[system] = run_peer(kind, Path(tmp), args, steps)
    print(
        f"\nHuman pace: each seat acts {THINK[0]}-{THINK[1]} s after it is asked, a ping "
        f"every {PING_SECONDS:g} s; server on core {args.server_core}, load generator on "
        f"core {args.client_core}; each step held {args.hold:g} s\n"
    )
    print(
        "| system | tables | moves/s | p50 ms | p99 ms | max ms | errors | server RSS MiB | "
        "server CPU | client CPU | client late p99 / max ms | server switches a move | "
        "load average |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|")
    for system_rows in rows.values():
        for row in system_rows:
            print(line_of(row))
    goal = args.goal_p99
    ours = held(rows.get("ours", []), goal)
    late = [f"{r['system']} {r['tables']}" for rs in rows.values() for r in rs
            if r["late_p99_ms"] > CLIENT_LATE_MS]  # fmt: skip
    if late:
        print(
            f"\nSteps whose load generator ran over {CLIENT_LATE_MS:g} ms late at p99 (they "
            f"measured the client or a busy machine; not counted): {', '.join(late)}"
        )
    print(f"\nTables held with p99 <= {goal:g} ms and no error (of the steps run):")
    for system, system_rows in rows.items():
        most = held(system_rows, goal)
        ratio = f" ({ours / most:.2f}x ours / theirs)" if ours and most and system != "ours" else ""
        print(f"  {system}: {most:,}{ratio}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
