"""Server throughput and latency against the physical limit (a bare echo server).

Run: `pip install -e '.[bench]' && python -m benchmarks.bench_server --quick`
(full: `python -m benchmarks.bench_server`, T = 100, 500, 1000, a 30 s paced
phase each; several minutes).

For each T it starts the real server (`python -m hollywood_gin`, one worker, a fresh
SQLite file) and the bare FastAPI echo server of `benchmarks.serve` on
loopback ports, and runs `benchmarks.loadclient` in a separate process: T
tables, two seat sockets each plus a spectator on every tenth, playing legal
moves. First paced (each table one action per second) against the app, then
the same pacing against the relay; then flat out, alternating app, relay and
echo, `--repeats` times. Every ratio is taken within one repetition; the
tables print the median over the repetitions. Latency is from sending an action
to both seats holding the new state. CPU is CPU-seconds per second (1.0 = one
core busy); the client shares the machine's cores with the servers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

from benchmarks.serve import REPO, app_server, echo_server, raise_open_files


def machine() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    import uvicorn
    import websockets

    return (
        f"{model}, {os.cpu_count()} cores (load average {load}), Python "
        f"{platform.python_version()}, uvicorn {uvicorn.__version__}, "
        f"websockets {websockets.__version__}"
    )


def run_client(
    app: str, app_pid: int, echo: str, echo_pid: int, args: argparse.Namespace, tables: int
) -> dict[str, Any]:
    cmd = [
        sys.executable, "-m", "benchmarks.loadclient",
        "--app", app, "--app-pid", str(app_pid),
        "--echo", echo, "--echo-pid", str(echo_pid),
        "--tables", str(tables),
        "--seconds", str(args.seconds),
        "--flat-seconds", str(args.flat_seconds),
        "--repeats", str(args.repeats),
    ]  # fmt: skip
    timeout = 600 + tables + 3 * args.seconds + 4 * args.repeats * args.flat_seconds
    out = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, timeout=timeout, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def deflated_sizes(frames: list[str]) -> tuple[float, float]:
    """Mean bytes of frames sent as they are and through permessage-deflate as uvicorn
    sets it up (window 2**12, memLevel 5, the context kept from frame to frame)."""
    if not frames:
        return float("nan"), float("nan")
    packer = zlib.compressobj(wbits=-12, memLevel=5)
    # Each message ends with a sync flush whose last 4 bytes are not sent (RFC 7692).
    packed = [
        len(packer.compress(f.encode()) + packer.flush(zlib.Z_SYNC_FLUSH)) - 4 for f in frames
    ]
    return statistics.mean(len(f.encode()) for f in frames), statistics.mean(packed)


def median_of(phases: list[dict[str, Any]], name: str, key: str) -> float:
    return statistics.median(p[key] for p in phases if p["phase"].startswith(name))


def ratio(phases: list[dict[str, Any]], top: str, bottom: str, key: str = "per_second") -> float:
    """Median over repetitions of the ratio within each repetition."""
    by_rep: dict[int, dict[str, float]] = {}
    for p in phases:
        if "repeat" in p:
            by_rep.setdefault(p["repeat"], {})[p["mode"]] = p[key]
    return statistics.median(r[top] / r[bottom] for r in by_rep.values())


def print_table(title: str, header: list[str], rows: list[list[object]]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


def trouble(result: dict[str, Any], mode: str) -> str:
    errors: dict[str, int] = {}
    timeouts = 0
    for p in result["phases"]:
        if p["mode"] == mode or (mode == "echo" and p["mode"] == "relay"):
            for code, n in p["errors"].items():
                errors[code] = errors.get(code, 0) + n
            timeouts += p["timeouts"]
    parts = [f"{n} {code}" for code, n in errors.items()]
    if timeouts:
        parts.append(f"{timeouts} timeouts")
    if result["dropped"]:
        parts.append(f"{result['dropped']} dropped (all servers)")
    return ", ".join(parts) or "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", default="100,500,1000", help="comma-separated T values")
    parser.add_argument("--seconds", type=float, default=30.0, help="paced phase, seconds")
    parser.add_argument("--flat-seconds", type=float, default=5.0, help="each flat-out window")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="T=100, 5 s paced, 3 s windows")
    parser.add_argument(
        "--deflate", action="store_true", help="servers accept permessage-deflate (default: off)"
    )
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()
    if args.quick:
        args.tables, args.seconds, args.flat_seconds = "100", 5.0, 3.0
    counts = [int(t) for t in args.tables.split(",")]
    print(f"open files limit {raise_open_files()}")
    env = {"HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "true" if args.deflate else "false"}
    where = machine()
    results = []
    for tables in counts:
        with (
            app_server(env) as (app, app_proc),
            echo_server(deflate=args.deflate) as (echo, echo_proc),
        ):
            results.append(run_client(app, app_proc.pid, echo, echo_proc.pid, args, tables))

    print(f"\nMachine: {where}; permessage-deflate {'on' if args.deflate else 'off'}")
    if args.seconds > 0:
        rows = []
        for r in results:
            for p in r["phases"]:
                if not p["paced"]:
                    continue
                server = "app" if p["mode"] == "app" else "echo"
                rows.append(
                    [
                        r["tables"],
                        "app" if p["mode"] == "app" else "relay (limit)",
                        f"{p['per_second']:.0f}",
                        f"{p['p50_ms']:.1f}",
                        f"{p['p95_ms']:.1f}",
                        f"{p['p99_ms']:.1f}",
                        f"{p[server + '_cpu']:.2f}",
                        f"{p[server + '_rss_mb']:.0f}",
                        f"{p['client_cpu']:.2f}",
                        f"{p.get('client_max_stall_ms', float('nan')):.0f}",
                        trouble(r, p["mode"]) if p["mode"] == "app" else "",
                    ]
                )
        print_table(
            f"Paced: each table one action per second for {args.seconds:.0f} s",
            [
                "T", "server", "actions/s", "p50 ms", "p95 ms", "p99 ms",
                "server CPU", "server RSS MB", "client CPU", "client stall ms", "errors",
            ],
            rows,
        )  # fmt: skip
    for r in results:
        for p in r["phases"]:
            server = "app" if p["mode"] == "app" else "echo"
            p["us_per_action"] = p[f"{server}_cpu"] / max(p["per_second"], 1e-9) * 1e6
    rows = []
    cpu_rows = []
    for r in results:
        ph = r["phases"]
        rows.append(
            [
                r["tables"],
                f"{median_of(ph, 'flat app', 'per_second'):.0f}",
                f"{median_of(ph, 'flat relay', 'per_second'):.0f}",
                f"{median_of(ph, 'flat echo', 'per_second'):.0f}",
                f"{ratio(ph, 'app', 'echo'):.2f}",
                f"{ratio(ph, 'app', 'relay'):.2f}",
                f"{median_of(ph, 'flat app', 'p50_ms'):.1f}",
                f"{median_of(ph, 'flat app', 'p99_ms'):.1f}",
                trouble(r, "app"),
            ]
        )
        cpu_rows.append(
            [
                r["tables"],
                f"{median_of(ph, 'flat app', 'us_per_action'):.0f}",
                f"{median_of(ph, 'flat relay', 'us_per_action'):.0f}",
                f"{median_of(ph, 'flat echo', 'us_per_action'):.0f}",
                f"{ratio(ph, 'echo', 'app', 'us_per_action'):.2f}",
                f"{ratio(ph, 'relay', 'app', 'us_per_action'):.2f}",
                f"{median_of(ph, 'flat app', 'app_cpu'):.2f}",
                f"{median_of(ph, 'flat echo', 'echo_cpu'):.2f}",
                f"{median_of(ph, 'flat app', 'client_cpu'):.2f}",
            ]
        )
    print_table(
        f"Flat out: medians of {args.repeats} windows of {args.flat_seconds:.0f} s",
        [
            "T", "app actions/s", "relay round trips/s", "echo round trips/s",
            "app / echo", "app / relay", "app p50 ms", "app p99 ms", "errors",
        ],
        rows,
    )  # fmt: skip
    print_table(
        "Flat out, server CPU per action (µs of CPU per completed action or round trip;"
        " a ratio is what the throughputs would be with a whole core each)",
        [
            "T", "app µs/action", "relay µs/round trip", "echo µs/round trip",
            "echo µs / app µs", "relay µs / app µs", "app CPU", "echo CPU", "client CPU (app)",
        ],
        cpu_rows,
    )  # fmt: skip
    state_sizes = ", ".join(f"T={r['tables']}: {r['state_bytes_mean']:.0f} B" for r in results)
    print(f"\nMean first state on connecting (uncompressed JSON): {state_sizes}")
    sample = [f for r in results for f in r.get("state_sample") or []]
    plain, packed = deflated_sizes(sample)
    print(
        f"Seat states of one table ({len(sample)} frames): {plain:.0f} B each as sent, "
        f"{packed:.0f} B through permessage-deflate ({packed / plain:.0%})"
    )
    if args.json:
        args.json.write_text(json.dumps({"machine": where, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
