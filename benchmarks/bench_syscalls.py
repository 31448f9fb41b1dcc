"""System calls per action and per heartbeat of the whole server at human pace, by kind
and by thread: a count the machine's load does not move (callgrind, in
`bench_instructions`, counts no kernel time).

Run: `python -m benchmarks.bench_syscalls main HEAD --actions 200`

For each commit (its package from `git archive`, as `bench_instructions` does), the
server runs as there (`benchmarks.seeded`: a fresh SQLite file, deflate off, no
keepalive pings) and `bench_instructions`' client plays `--tables` tables, two seat
sockets each, the tables taking turns, one action in the server at a time, with
`--pause` seconds between actions so that each action arrives at an idle server, as
at human pace (its own wake-up, its own commit of one). After `--warm` actions a
table, `strace -f -ttt -y` attaches to every thread of the server; the idle server is
traced for `--idle` seconds first (its timers: uvicorn's tick, the WAL checkpointer),
then `--actions` actions, then `--heartbeats` page pings a socket (each answered by its
`pong` before the next). Each window's calls, less the idle server's at the same rate,
are divided by its actions (or heartbeats) and printed by name and by thread: the
event loop's (the process's first thread) and the others (the store's writer,
the checkpointer, the default executor).

Also printed: the writes to seat sockets per action (a frame a seat: 2 for a move),
the actions in which one socket was written more than once (several frames to one
socket in one change), the `epoll_ctl` calls per action, and the read size the loop
asks of a socket. strace slows the server; the counts, not its time, are the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bench_instructions import PING, Table, wait_healthy
from benchmarks.serve import LOAD_ENV, REPO, export, free_port

# `PID SECONDS.MICROS name(args...` (a call's start: resumed halves are not counted).
_CALL = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+([a-z_0-9]+)\((.*)$")
_FD = re.compile(r"^(\d+)<([^>]*)>")


@dataclass
class Call:
    pid: int
    at: float
    name: str
    args: str


@dataclass
class Window:
    start: float
    end: float
    units: int  # actions or heartbeats
    marks: list[float] = field(default_factory=list)  # each action's start


def parse(path: Path) -> list[Call]:
    calls = []
    for line in path.read_text(errors="replace").splitlines():
        found = _CALL.match(line)
        if found is None or "resumed>" in line:
            continue
        calls.append(Call(int(found[1]), float(found[2]), found[3], found[4]))
    return calls


def socket_fd(call: Call) -> int | None:
    """The fd of a call on a TCP socket (strace `-y`: `12<TCP:[...]>`), else None."""
    found = _FD.match(call.args)
    if found is None or not found[2].startswith(("TCP", "socket")):
        return None
    return int(found[1])


def counts(calls: list[Call], window: Window, main: int) -> collections.Counter[str]:
    got: collections.Counter[str] = collections.Counter()
    for call in calls:
        if window.start <= call.at < window.end:
            thread = "loop" if call.pid == main else "other"
            got[f"{call.name} ({thread})"] += 1
    return got


def run(root: Path, args: argparse.Namespace, out: Path) -> str:
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
            "PYTHONPATH": os.pathsep.join(str(r) for r in (root, REPO)),
        }
    )
    argv = [sys.executable, "-m", "benchmarks.seeded", "hollywood_gin"]
    proc = subprocess.Popen(argv, cwd=root, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    trace = out / "strace.txt"
    windows: dict[str, Window] = {}
    tracer: subprocess.Popen[bytes] | None = None
    try:
        wait_healthy(proc, base)  # type: ignore[arg-type]

        async def session() -> None:
            nonlocal tracer
            received = type("R", (), {"frames": 0, "bytes": 0})()
            tables = [Table(base, n, received) for n in range(args.tables)]
            for table in tables:
                await table.open()
            for _ in range(args.warm):
                for table in tables:
                    await table.act()
            tracer = subprocess.Popen(
                ["strace", "-f", "-ttt", "-y", "-s", "0", "-o", str(trace), "-p", str(proc.pid)],
                stderr=subprocess.DEVNULL,
            )
            await asyncio.sleep(2.0)  # attached to every thread
            start = time.time()
            await asyncio.sleep(args.idle)
            windows["idle"] = Window(start, time.time(), 1)
            acted = Window(time.time(), 0.0, 0)
            before = sum(t.states[0]["version"] for t in tables)
            while sum(t.states[0]["version"] for t in tables) - before < args.actions:
                for table in tables:
                    await asyncio.sleep(args.pause)
                    acted.marks.append(time.time())
                    await table.act()
            acted.end = time.time()
            acted.units = sum(t.states[0]["version"] for t in tables) - before
            windows["action"] = acted
            if args.heartbeats:
                beats = Window(time.time(), 0.0, 0)
                for _ in range(args.heartbeats):
                    for table in tables:
                        for ws in table.sockets:
                            await asyncio.sleep(args.pause)
                            beats.marks.append(time.time())
                            await ws.send(PING)
                            while b'"pong"' not in (await ws.recv()).encode():
                                pass
                            beats.units += 1
                beats.end = time.time()
                windows["heartbeat"] = beats
            await asyncio.sleep(0.5)
            tracer.send_signal(signal.SIGINT)
            tracer.wait(timeout=60)
            for table in tables:
                for ws in table.sockets:
                    await ws.close()

        asyncio.run(session())
    finally:
        if tracer is not None and tracer.poll() is None:
            tracer.send_signal(signal.SIGINT)
            tracer.wait(timeout=60)
        proc.terminate()
        proc.wait(timeout=60)
    return report(parse(trace), windows, proc.pid)


def report(calls: list[Call], windows: dict[str, Window], main: int) -> str:
    idle = windows["idle"]
    idle_rate = {name: n / (idle.end - idle.start) for name, n in counts(calls, idle, main).items()}
    lines = []
    for kind in ("action", "heartbeat"):
        window = windows.get(kind)
        if window is None or not window.units:
            continue
        got = counts(calls, window, main)
        seconds = window.end - window.start
        per = {
            name: (n - idle_rate.get(name, 0.0) * seconds) / window.units for name, n in got.items()
        }
        total = sum(per.values())
        lines.append(f"  per {kind} ({window.units} {kind}s, {seconds:.1f} s): {total:.2f} calls")
        for name, value in sorted(per.items(), key=lambda item: -item[1]):
            if abs(value) >= 0.005:
                lines.append(f"    {name:32} {value:7.2f}")
        # Socket writes and reads of the loop, by action.
        marks = [*window.marks, window.end]
        by_mark: list[collections.Counter[int]] = [collections.Counter() for _ in window.marks]
        reads: collections.Counter[str] = collections.Counter()
        ctl = 0
        for call in calls:
            if not (window.start <= call.at < window.end) or call.pid != main:
                continue
            if call.name == "epoll_ctl":
                ctl += 1
            fd = socket_fd(call)
            if fd is None:
                continue
            if call.name in ("write", "writev", "sendto", "sendmsg", "send"):
                slot = next(
                    (i for i in range(len(window.marks)) if marks[i] <= call.at < marks[i + 1]),
                    None,
                )
                if slot is not None:
                    by_mark[slot][fd] += 1
            elif call.name in ("read", "recvfrom", "recv", "recvmsg"):
                reads[call.args.rsplit(",", 1)[-1].strip(" )")] += 1
        writes = sum(sum(c.values()) for c in by_mark)
        twice = sum(1 for c in by_mark if any(n > 1 for n in c.values()))
        lines.append(
            f"    socket writes {writes / window.units:.2f} a {kind} "
            f"({twice} of {len(by_mark)} {kind}s wrote one socket more than once); "
            f"epoll_ctl {ctl / window.units:.2f} a {kind}; socket read sizes asked "
            f"{dict(reads)}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--warm", type=int, default=10, help="actions per table first")
    parser.add_argument("--actions", type=int, default=200, help="traced, all tables")
    parser.add_argument("--heartbeats", type=int, default=5, help="page pings a socket")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between actions")
    parser.add_argument("--idle", type=float, default=5.0, help="idle seconds traced first")
    parser.add_argument("--keep", type=Path, help="keep each commit's trace here")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="gin-bench-syscalls-") as tmp:
        for commit in args.commits:
            root = export(commit, Path(tmp))
            out = Path(tmp) / f"out-{commit}"
            out.mkdir()
            print(f"{commit}:\n{run(root, args, out)}", flush=True)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(out / "strace.txt", args.keep / f"strace-{commit}.txt")
    print(f"load average {os.getloadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
