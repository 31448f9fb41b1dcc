"""Server CPU per move against two peers: boardgame.io and Colyseus, the same load shape.

Run: `pip install -e '.[bench]' && nice python -m benchmarks.bench_peers` (~10 min;
`--tables 100` alone ~4 min). Needs Node.js and npm: the peers are installed with npm
into a temporary folder at run time (never into this tree) and removed afterwards.

Four systems, each on loopback, one process, started fresh for each round:

- `ours`: `python -m hollywood_gin` as shipped (SQLite, a durable group commit per move);
- `ours, no store`: the same server with a store that keeps nothing
  (`benchmarks.nullstore`): the rules, the views and the web layer alone;
- `boardgame.io` 0.50.2 (its `Server`: Koa and socket.io, the in-memory store),
  a trivial game: one move adds one to a counter and ends the turn;
- `Colyseus` 0.16 (`@colyseus/core` with `@colyseus/ws-transport`), the same trivial
  game as a room with a schema state of one number, a patch broadcast at each
  move (`setPatchRate(null)` + `broadcastPatch()`, not every 50 ms).

The load shape is `bench_server`'s: T tables of two seats plus a spectator on every
tenth, flat out (a table moves again once both seats hold its last move), in
windows; our server is driven by `benchmarks.loadclient`, the peers by
`benchmarks/peers/client.js` (their own client libraries: `boardgame.io/client`,
`colyseus.js`). Per window: moves/s, the server process's CPU (user + system, all
its threads) per move, and the latency p99 (send to both seats holding the move).
Per socket: the server's RSS growth from start-up to all sockets open, divided by
the sockets (tables and rooms included). The systems take turns round by round,
so a busy spell of the shared machine slows them alike; figures are medians of all
windows of a system.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.serve import REPO, app_server, echo_server, free_port, raise_open_files, stop

PEERS = REPO / "benchmarks" / "peers"
PACKAGES = [
    "boardgame.io@0.50.2",
    "@colyseus/core@0.16",
    "@colyseus/ws-transport@0.16",
    "@colyseus/schema@3",
    "colyseus.js@0.16",
]
Windows = list[dict[str, float]]
SYSTEMS = ["ours", "ours-no-store", "boardgame.io", "colyseus"]


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def install(into: Path) -> str | None:
    """npm-install the peers into `into`; None, or why not."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "Node.js or npm is not on this machine"
    (into / "package.json").write_text('{"private": true}\n')
    for name in ("servers.js", "client.js"):
        shutil.copy(PEERS / name, into / name)
    try:
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *PACKAGES],
            cwd=into,
            capture_output=True,
            text=True,
            timeout=600,
        )
    except subprocess.TimeoutExpired:
        return "npm install took over 10 minutes (is the npm registry reachable?)"
    if done.returncode != 0:
        return "npm install failed (is the npm registry reachable?): " + done.stderr[-400:]
    return None


def until_ready(server: subprocess.Popen[str], kind: str) -> None:
    """Until a peer's server (`servers.js`) prints `ready`; RuntimeError if it ends or
    a minute passes."""
    assert server.stdout is not None
    deadline = time.monotonic() + 60
    while "ready" not in server.stdout.readline():
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{kind} did not start")


def rss(pid: int) -> int:
    import psutil

    return int(psutil.Process(pid).memory_info().rss)


def cpu(pid: int) -> float:
    import psutil

    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def run_ours(
    null_store: bool, echo: tuple[str, int], args: argparse.Namespace, tables: int
) -> tuple[Windows, float]:
    argv = [sys.executable, "-m", "benchmarks.bench_peers", "--serve-null-store"]
    with app_server(
        {"HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "false"}, argv=argv if null_store else None
    ) as (base, proc):
        before = rss(proc.pid)
        cmd = [
            sys.executable, "-m", "benchmarks.loadclient",
            "--app", base, "--app-pid", str(proc.pid),
            "--echo", echo[0], "--echo-pid", str(echo[1]),
            "--tables", str(tables), "--seconds", "0",
            "--flat-seconds", str(args.seconds), "--repeats", str(args.windows),
            "--modes", "app",
        ]  # fmt: skip
        # Into a file, not a pipe: through a pipe the document came back cut off at
        # 64 KB in two runs of this script (never in bench_versions), exit status 0.
        with tempfile.TemporaryFile() as sink:
            subprocess.run(cmd, cwd=REPO, stdout=sink, check=True, timeout=1200)
            sink.seek(0)
            result = json.loads(sink.read())
    windows = [
        {
            "per_second": p["per_second"],
            "cpu_us": p["app_cpu"] / p["per_second"] * 1e6,
            "p99_ms": p["p99_ms"],
        }
        for p in result["phases"]
    ]
    first_rss = result["phases"][0]["app_rss_mb"] * 2**20
    return windows, (first_rss - before) / result["sockets"]


def run_peer(
    kind: str, folder: Path, args: argparse.Namespace, tables: int
) -> tuple[Windows, float]:
    port = free_port()
    server = subprocess.Popen(
        ["node", "servers.js", kind, str(port)], cwd=folder, stdout=subprocess.PIPE, text=True
    )
    windows: Windows = []
    per_socket = float("nan")
    try:
        until_ready(server, kind)
        time.sleep(0.5)
        before = rss(server.pid)
        client = subprocess.Popen(
            ["node", "client.js", kind, f"http://127.0.0.1:{port}", str(tables),
             str(args.seconds), str(args.windows)],
            cwd=folder, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert client.stdout is not None
        marks: tuple[float, float] = (0.0, 0.0)
        for line in client.stdout:
            word, *rest = line.split()
            if word == "connected":
                per_socket = (rss(server.pid) - before) / int(rest[0])
            elif word == "start":
                marks = (cpu(server.pid), time.perf_counter())
            elif word == "end":
                used = cpu(server.pid) - marks[0]
                wall = time.perf_counter() - marks[1]
                moves = int(rest[1])
                windows.append(
                    {
                        "per_second": moves / wall,
                        "cpu_us": used / moves * 1e6 if moves else float("nan"),
                        "p99_ms": float(rest[4]),
                    }
                )
                say(
                    f"  {kind} T={tables}: {moves / wall:8.0f} moves/s, "
                    f"{windows[-1]['cpu_us']:.0f} µs CPU per move, p99 {float(rest[4]):.1f} ms"
                )
        if client.wait(timeout=60) != 0:
            raise RuntimeError(f"the {kind} client failed")
    finally:
        stop(server, timeout=10)
    return windows, per_socket


def serve_null_store() -> int:
    """`python -m hollywood_gin` with a store that keeps nothing (the `ours-no-store` row)."""
    import hollywood_gin.tables.lifecycle as lifecycle
    from benchmarks.nullstore import NullStore
    from hollywood_gin.serve import main as serve

    if not hasattr(lifecycle, "open_store"):
        raise SystemExit(
            "bench_peers: hollywood_gin.tables.lifecycle.open_store is gone; update this"
        )
    lifecycle.open_store = lambda *_, **__: NullStore()  # type: ignore[assignment]
    return serve()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", default="100,500")
    parser.add_argument("--seconds", type=float, default=5.0, help="each flat-out window")
    parser.add_argument("--windows", type=int, default=3, help="windows per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--serve-null-store", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_null_store:
        return serve_null_store()
    raise_open_files()
    systems = args.systems.split(",")
    counts = [int(t) for t in args.tables.split(",")]
    figures: dict[tuple[str, int], Windows] = {}
    sockets: dict[str, list[float]] = {}
    missing: str | None = None
    with tempfile.TemporaryDirectory(prefix="gin-bench-peers-") as tmp:
        folder = Path(tmp)
        if any(s in ("boardgame.io", "colyseus") for s in systems):
            say("installing the peers with npm into " + tmp)
            missing = install(folder)
            if missing:
                say("peers not run: " + missing)
                systems = [s for s in systems if s.startswith("ours")]
        with echo_server() as (echo, echo_proc):
            for tables in counts:
                for _ in range(args.rounds):
                    for system in systems:
                        say(f"{system}, T={tables}")
                        if system.startswith("ours"):
                            windows, per_socket = run_ours(
                                system == "ours-no-store", (echo, echo_proc.pid), args, tables
                            )
                        else:
                            kind = "bgio" if system == "boardgame.io" else "colyseus"
                            windows, per_socket = run_peer(kind, folder, args, tables)
                        figures.setdefault((system, tables), []).extend(windows)
                        sockets.setdefault(system, []).append(per_socket)

    def med(system: str, tables: int, key: str) -> str:
        values = [w[key] for w in figures.get((system, tables), [])]
        if not values:
            return ""
        value = statistics.median(values)
        return f"{value:,.1f}" if key == "p99_ms" else f"{value:,.0f}"

    print(
        f"\nFlat out, {args.rounds} rounds of {args.windows} windows of {args.seconds:g} s per "
        "system and T, the systems alternating; medians of the windows\n"
    )
    head = " | ".join(f"CPU µs per move, T={t} | moves/s T={t} | p99 ms T={t}" for t in counts)
    print(f"| system | {head} | RSS per socket |")
    print("|---|" + "---:|" * (3 * len(counts) + 1))
    for system in systems:
        cells = " | ".join(
            f"{med(system, t, 'cpu_us')} | {med(system, t, 'per_second')} | "
            f"{med(system, t, 'p99_ms')}"
            for t in counts
        )
        kb = statistics.median(sockets[system]) / 1024
        print(f"| {system} | {cells} | {kb:.0f} KB |")
    if missing:
        print(f"\nboardgame.io and Colyseus not run: {missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
