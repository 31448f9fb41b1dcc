"""The whole server's instructions per action under valgrind's callgrind, per version:
a figure the shared machine's load does not move (CPU seconds do, by ±10 %).

Run: `python -m benchmarks.bench_instructions main HEAD --actions 300 --relay`

For each commit (its package, `templates` and `static` from `git archive`, as
`bench_versions` does) and each round, `python -m hollywood_gin` runs under
`valgrind --tool=callgrind --instr-atstart=no` (one worker, a fresh SQLite file,
deflate off). A client here plays `--tables` tables with two seat sockets each, one
action at a time per table, all tables at once, legal moves from the seats' states
(the action counts once both seats hold the next version). After `--warm` actions
per table, counting is switched on (`callgrind_control --instr=on`), `--actions`
actions are played, and the counters are dumped: user-space instructions of every
thread of the server (the event loop and the store's), per action. System calls'
kernel time is not counted.

Deals are seeded: the server runs with its test hooks on and each table is created
with its first dealer and a list of server secrets derived from the table's number
(`test_first_dealer`, `test_secrets`; no seat sends entropy), and through
`benchmarks.seeded` (tokens, ids and each dealer's reshuffles seeded, no keepalive
pings), so every run and every version plays the same hands with the same moves. The
clients send no pings either. The idle server's own work per second (uvicorn's tick,
the WAL checkpointer: it goes by the wall clock, which valgrind and the machine's load
stretch) is counted over `--idle` seconds first and taken off. What is left to chance
is the tables' interleaving (the store's batches, the loop's turns): `--serial` has the
tables take turns, one action in the server at a time, and then two runs of one commit
agree within about 0.1 % (docs/research/performance-log.md "The stack per frame, cut").

`--relay`: each round also counts the bare relay of `bench_server`
(`benchmarks.serve`, this tree's, the same uvicorn stack under the same callgrind) on
the same number of rooms: per action the mover sends one frame and both seats receive
one frame as large as the app's mean state frame of that round (`loadclient`'s relay
round trip), so "app / relay" is a ratio of instructions the load does not move.
`--null-store`: each commit also with a store that keeps nothing. `--outside-stages`:
each commit also counted only outside `bench_stages`' in-process stages (and the
frame's parse): the sockets' stack, the writer tasks, the store's thread and answers,
the loop (`benchmarks.seeded.Outside`). `--keep DIR` keeps each run's callgrind files
there (for `callgrind_annotate`).

`--heartbeats N`: after the actions, each seat socket sends the page's heartbeat
(`{"type":"ping"}`, as `static/js/socket.js` sends it) N times, one at a time, each
answered by its `pong` before the next, in a window counted on its own: the
instructions of one heartbeat and its answer (less the idle server's), the cost
each socket pays every 25 s at human pace whatever its table does.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.bench_stage_instructions import build
from benchmarks.compat import playable
from benchmarks.serve import LOAD_ENV, REPO, export, free_port

# The page's heartbeat, byte for byte (`--heartbeats`).
PING = '{"type":"ping"}'

# Server secrets per table: enough for every deal of a run (the hooks take up to 200).
SECRETS_PER_TABLE = 200


def table_secrets(number: int) -> list[str]:
    """Table `number`'s server secrets, one per deal, the same in every run."""
    return [
        hashlib.sha256(f"bench_instructions {number} {deal}".encode()).hexdigest()
        for deal in range(SECRETS_PER_TABLE)
    ]


async def connect_quiet(url: str) -> ClientConnection:
    """A client socket that sends no pings (a ping's cost would go by the wall clock)."""
    return await connect(url, max_size=None, open_timeout=300, ping_interval=None)


@dataclass
class Received:
    """Frames (and their bytes) the clients received, to size the relay's frames."""

    frames: int = 0
    bytes: int = 0


class Table:
    def __init__(self, base: str, number: int, received: Received) -> None:
        self.received = received
        body = {
            "name": "Ann",
            "test_first_dealer": number % 2,
            "test_secrets": table_secrets(number),
        }
        made = httpx.post(f"{base}/api/tables", json=body, timeout=120).json()
        joined = httpx.post(
            f"{base}/api/tables/{made['table_id']}/seats", json={"name": "Bob"}, timeout=120
        ).json()
        self.url = base.replace("http://", "ws://") + f"/ws/tables/{made['table_id']}"
        self.tokens = [made["token"], joined["token"]]
        self.sockets: list[ClientConnection] = []
        self.states: list[dict[str, Any]] = [{}, {}]

    async def open(self) -> None:
        for token in self.tokens:
            ws = await connect_quiet(self.url)
            await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
            self.sockets.append(ws)
        await self.until(lambda s: s.get("you") in (0, 1))

    async def until(self, done: Any) -> None:
        for seat, ws in enumerate(self.sockets):
            while not done(self.states[seat]) or self.states[seat].get("you") != seat:
                raw = await asyncio.wait_for(ws.recv(), 600)
                self.received.frames += 1
                self.received.bytes += len(raw)
                message = orjson.loads(raw)
                if message["type"] == "state":
                    self.states[seat] = message

    async def act(self) -> None:
        """One action: the mover's first playable one (a knock when open), or both seats'
        `next_hand` once a hand is over (counted as one action each)."""
        version = self.states[0]["version"]
        if self.states[0]["hand"]["phase"] == "over":
            over = self.states[0]["sheet"].get("match_winner") is not None
            for seat in (0, 1):
                await self.send(seat, {"kind": "new_match" if over else "next_hand"})
                version += 1
                await self.until(lambda s, v=version: s["version"] >= v)
            return
        for seat in (0, 1):
            legal = playable(self.states[seat]["legal"])
            if legal:
                knocks = [a for a in legal if a["kind"] == "knock"]
                action = {k: v for k, v in (knocks or legal)[0].items() if k != "deadwood"}
                await self.send(seat, action)
                await self.until(lambda s, v=version + 1: s["version"] >= v)
                return
        raise RuntimeError("no seat can act")

    async def send(self, seat: int, action: dict[str, Any]) -> None:
        version = self.states[seat]["version"]
        frame = {"type": "action", "version": version, "action": action}
        await self.sockets[seat].send(orjson.dumps(frame).decode())


class Room:
    """A relay room of `benchmarks.serve`: two seat sockets; an action is one frame from
    the mover (the seats take turns) and one frame of `pad` bytes more to each seat."""

    def __init__(self, base: str, number: int, pad: int) -> None:
        self.url = base.replace("http://", "ws://") + f"/relay/room{number}"
        self.pad = pad
        self.sockets: list[ClientConnection] = []
        self.version = 0

    async def open(self) -> None:
        self.sockets = [await connect_quiet(self.url) for _ in (0, 1)]

    @property
    def states(self) -> list[dict[str, int]]:  # as `Table`'s, for `play`
        return [{"version": self.version}]

    async def act(self) -> None:
        frame = {
            "type": "action",
            "version": self.version,
            "action": {"kind": "draw_stock"},
            "fanout": True,
            "pad": self.pad,
        }
        await self.sockets[self.version % 2].send(orjson.dumps(frame).decode())
        for ws in self.sockets:
            message = orjson.loads(await asyncio.wait_for(ws.recv(), 600))
            assert message["version"] == self.version + 1, message
        self.version += 1


async def play(tables: list[Table] | list[Room], per_table: int, serial: bool = False) -> int:
    """Every table plays until it has done `per_table` actions; the versions gained.
    `serial`: the tables take turns, one action in the server at a time."""
    before: int = sum(t.states[0]["version"] for t in tables)
    if serial:
        each: list[Table | Room] = list(tables)
        starts = [t.states[0]["version"] for t in each]
        while any(t.states[0]["version"] - s < per_table for t, s in zip(each, starts)):  # noqa: B905
            for table, start in zip(each, starts, strict=True):
                if table.states[0]["version"] - start < per_table:
                    await table.act()
        return sum(t.states[0]["version"] for t in tables) - before

    async def run(table: Table | Room) -> None:
        start = table.states[0]["version"]
        while table.states[0]["version"] - start < per_table:
            await table.act()

    await asyncio.gather(*(run(t) for t in tables))
    after: int = sum(t.states[0]["version"] for t in tables)
    return after - before


def control(pid: int, *args: str) -> None:
    said = subprocess.run(
        ["callgrind_control", *args, str(pid)], check=True, capture_output=True, text=True
    ).stdout
    if "OK" not in said:
        raise RuntimeError(f"callgrind_control {' '.join(args)}: {said.strip()}")


@dataclass
class Counted:
    per_action: float  # less the idle server's instructions over the counted seconds
    raw: float  # all the counted window's instructions per action
    idle_per_second: float
    seconds: float  # the counted window's wall time
    frame_bytes: float  # mean bytes of the frames the clients received while counting
    frames_per_action: float
    per_heartbeat: float | None = None  # `--heartbeats`: a ping and its pong


def wait_healthy(proc: subprocess.Popen[bytes], base: str) -> None:
    deadline = time.monotonic() + 600
    while True:
        try:
            if httpx.get(base + "/healthz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
        time.sleep(1)


def count(
    root: Path | None,
    args: argparse.Namespace,
    out: Path,
    pad: int = 0,
    options: tuple[str, ...] = (),
) -> Counted:
    """Instructions per action of `root`'s server (`options` for `benchmarks.seeded`:
    a store that keeps nothing, only outside the stages), or (`root` None) of the bare
    relay with frames of `pad` bytes."""
    port = free_port()
    env = dict(os.environ)
    env.update(LOAD_ENV)
    env.update(
        {
            "HOLLYWOOD_GIN_HOST": "127.0.0.1",
            "HOLLYWOOD_GIN_PORT": str(port),
            "HOLLYWOOD_GIN_DATA_FILE": str(out / "tables.sqlite3"),
            "HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "false",
            "HOLLYWOOD_GIN_TEST_HOOKS": "true",
            "PYTHONHASHSEED": "0",
            # The version's package first, this tree's benchmarks after it.
            "PYTHONPATH": os.pathsep.join(str(r) for r in (root, REPO) if r is not None),
        }
    )
    if root is None:
        served = ["benchmarks.serve", "--echo", "--port", str(port), "--no-deflate"]
    else:
        served = ["hollywood_gin"]
    argv = [
        "valgrind", "--tool=callgrind", "--instr-atstart=no", *args.valgrind.split(),
        f"--callgrind-out-file={out}/callgrind.out.%p",
        sys.executable, "-m", "benchmarks.seeded", *options, *served,
    ]  # fmt: skip
    proc = subprocess.Popen(argv, cwd=root or REPO, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    received = Received()
    windows: list[float] = []  # wall seconds: idle, counted
    try:
        wait_healthy(proc, base)

        async def session() -> int:
            tables: list[Table] | list[Room]
            if root is None:
                tables = [Room(base, n, pad) for n in range(args.tables)]
            else:
                tables = [Table(base, n, received) for n in range(args.tables)]
            for table in tables:
                await table.open()
            await play(tables, args.warm, args.serial)
            control(proc.pid, "--zero")
            control(proc.pid, "--instr=on")
            # The idle server's own work (uvicorn's tick ten times a second, the WAL
            # checkpointer's every second...) goes by the wall clock, which valgrind
            # stretches and the machine's load moves: counted alone first, taken off.
            idle_from = time.monotonic()
            await asyncio.sleep(args.idle)
            control(proc.pid, "--dump")  # (a dump zeroes the counters)
            windows.append(time.monotonic() - idle_from)
            received.frames = received.bytes = 0
            counted_from = time.monotonic()
            done = await play(tables, args.actions // args.tables, args.serial)
            control(proc.pid, "--dump")  # (switching counting off first loses the counts)
            windows.append(time.monotonic() - counted_from)
            if args.heartbeats and root is not None:
                beats_from = time.monotonic()
                for table in tables:
                    for ws in table.sockets:
                        for _ in range(args.heartbeats):
                            await ws.send(PING)
                            while orjson.loads(await ws.recv())["type"] != "pong":
                                pass
                control(proc.pid, "--dump")
                windows.append(time.monotonic() - beats_from)
            for table in tables:
                for ws in table.sockets:
                    await ws.close()
            return done

        actions = asyncio.run(session())
    finally:
        proc.terminate()
        proc.wait(timeout=300)
    # The explicit dumps: .1 the idle window, .2 the counted one.
    idle, counted = (total(out, n) for n in (1, 2))
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        for number, tag in ((2, ""), (3, "-heartbeats"))[: len(windows) - 1]:
            for dump in dumps(out, number):  # one a thread with --separate-threads=yes
                suffix = dump.rpartition(f".{number}")[2]
                shutil.copy(dump, args.keep / f"{out.name}{tag}{suffix}.callgrind")
    idle_per_second = idle / windows[0]
    net = (counted - idle_per_second * windows[1]) / actions
    per_heartbeat = None
    if len(windows) > 2:
        beats = args.heartbeats * 2 * args.tables  # two seat sockets a table
        per_heartbeat = (total(out, 3) - idle_per_second * windows[2]) / beats
    if root is None:
        return Counted(net, counted / actions, idle_per_second, windows[1], pad + 40.0, 2.0)
    return Counted(
        net,
        counted / actions,
        idle_per_second,
        windows[1],
        received.bytes / max(1, received.frames),
        received.frames / actions,
        per_heartbeat,
    )


def dumps(out: Path, number: int) -> list[str]:
    """The files of dump `number` (one, or one a thread: `callgrind.out.PID.N-TT`)."""
    found = glob.glob(f"{out}/callgrind.out.*.{number}") or glob.glob(
        f"{out}/callgrind.out.*.{number}-*"
    )
    assert found, (out, number)
    return sorted(found)


def total(out: Path, number: int) -> int:
    """All threads' instructions in dump `number`."""
    counted = 0
    for dump in dumps(out, number):
        found = re.search(r"^(?:summary|totals): (\d+)", Path(dump).read_text(), re.M)
        assert found, dump
        counted += int(found.group(1))
    return counted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--warm", type=int, default=10, help="actions per table first")
    parser.add_argument("--actions", type=int, default=200, help="counted, all tables")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--relay", action="store_true", help="count the bare relay too, each round")
    parser.add_argument(
        "--serial",
        action="store_true",
        help="the tables take turns, one action at a time (no batches: repeatable to 0.1 %%)",
    )
    parser.add_argument(
        "--idle", type=float, default=5.0, help="seconds of the idle server counted first"
    )
    parser.add_argument(
        "--null-store",
        action="store_true",
        help="each commit with a store that keeps nothing too (benchmarks.nullstore)",
    )
    parser.add_argument(
        "--outside-stages",
        action="store_true",
        help="each commit counted outside bench_stages' in-process stages too",
    )
    parser.add_argument(
        "--valgrind", default="", help="more valgrind options, e.g. --separate-threads=yes"
    )
    parser.add_argument("--keep", type=Path, help="keep the callgrind files here")
    parser.add_argument(
        "--heartbeats",
        type=int,
        default=0,
        help="then N page pings a seat socket, counted apart: instructions a heartbeat",
    )
    args = parser.parse_args()
    results: dict[str, list[Counted]] = {}
    relays: list[Counted] = []
    with tempfile.TemporaryDirectory(prefix="gin-bench-instr-") as tmp:
        roots = {c: export(c, Path(tmp)) for c in args.commits}
        variants: list[tuple[str, str, tuple[str, ...]]] = [("", "", ())]
        if args.null_store:
            variants.append((" (no store)", "-null", ("--null-store",)))
        if args.outside_stages:
            lib = build(Path(tmp))
            variants.append((" (outside the stages)", "-out", ("--outside-stages", str(lib))))
            if args.null_store:
                both = ("--null-store", "--outside-stages", str(lib))
                variants.append((" (no store, outside the stages)", "-null-out", both))
        for n in range(args.rounds):
            for commit, root in roots.items():
                for suffix, tag, options in variants:
                    name = commit + suffix
                    out = Path(tmp) / f"out-{commit}{tag}-{n}"
                    out.mkdir()
                    got = count(root, args, out, options=options)
                    results.setdefault(name, []).append(got)
                beat = (
                    ""
                    if got.per_heartbeat is None
                    else f"; {got.per_heartbeat:,.0f} a heartbeat and its pong"
                )
                print(
                    f"{name}: {got.per_action:,.0f} instructions per action "
                    f"({got.raw:,.0f} with the idle server's {got.idle_per_second:,.0f} a "
                    f"second over {got.seconds:.1f} s; "
                    f"{got.frames_per_action:.2f} frames of {got.frame_bytes:,.0f} bytes{beat})",
                    file=sys.stderr,
                )
            if args.relay:
                sizes = [results[c][-1].frame_bytes for c in args.commits]
                pad = max(0, int(statistics.mean(sizes)) - 40)
                out = Path(tmp) / f"out-relay-{n}"
                out.mkdir()
                got = count(None, args, out, pad)
                relays.append(got)
                print(
                    f"relay: {got.per_action:,.0f} instructions per action ({got.raw:,.0f} "
                    f"with the idle server's {got.idle_per_second:,.0f} a second over "
                    f"{got.seconds:.1f} s)",
                    file=sys.stderr,
                )
    how = "taking turns" if args.serial else "at once"
    print(f"\n{args.tables} tables {how}, {args.actions} actions counted after {args.warm} each:\n")
    head = "| commit | instructions per action (each round) |"
    rule = "|---|---|"
    if relays:
        head += " app / relay (each round) |"
        rule += "---|"
    print(head)
    print(rule)
    for commit, each in results.items():
        row = f"| {commit} | {', '.join(f'{c.per_action:,.0f}' for c in each)} |"
        beats = [c.per_heartbeat for c in each if c.per_heartbeat is not None]
        if beats:
            row = row[:-1] + f"and a heartbeat {', '.join(f'{b:,.0f}' for b in beats)} |"
        if relays:
            ratios = (c.per_action / r.per_action for c, r in zip(each, relays, strict=True))
            row += f" {', '.join(f'{x:.2f}' for x in ratios)} |"
        print(row)
    if relays:
        print(f"| relay | {', '.join(f'{r.per_action:,.0f}' for r in relays)} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
