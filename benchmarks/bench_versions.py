"""The whole server, flat out, as it was at several commits: what each change bought.

Run: `pip install -e '.[bench]' && python -m benchmarks.bench_versions 37a2e63 HEAD`

For each round and each commit in turn, `python -m hollywood_gin` of that commit (its
`app`, `templates` and `static` from `git archive`, one worker, a fresh SQLite
file) is started on a loopback port and the load client of `bench_server`
(this tree's) plays T tables flat out against it for `--repeats` windows; the
versions alternate so that a busy spell of the shared machine slows them
alike. Printed per version: flat-out actions/s and server CPU µs per action,
each window's figure and their median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.serve import REPO, app_server, echo_server, export, raise_open_files


def flat_out(
    root: Path, echo: str, echo_pid: int, args: argparse.Namespace
) -> list[dict[str, Any]]:
    with app_server({"HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "false"}, root) as (app, proc):
        cmd = [
            sys.executable, "-m", "benchmarks.loadclient",
            "--app", app, "--app-pid", str(proc.pid),
            "--echo", echo, "--echo-pid", str(echo_pid),
            "--tables", str(args.tables), "--seconds", "0",
            "--flat-seconds", str(args.flat_seconds), "--repeats", str(args.repeats),
            "--modes", "app",
        ]  # fmt: skip
        # Into a file, not a pipe: through a pipe the document came back cut off (at
        # 64 and 130 KB) on a busy machine, as in bench_peers.
        with tempfile.TemporaryFile() as sink:
            subprocess.run(cmd, cwd=REPO, stdout=sink, check=True, timeout=900)
            sink.seek(0)
            document = json.loads(sink.read())
    phases: list[dict[str, Any]] = document["phases"]
    return phases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--flat-seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3, help="flat-out windows per round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    raise_open_files()
    rates: dict[str, list[float]] = {c: [] for c in args.commits}
    costs: dict[str, list[float]] = {c: [] for c in args.commits}
    with tempfile.TemporaryDirectory(prefix="gin-bench-versions-") as tmp:
        roots = {commit: export(commit, Path(tmp)) for commit in args.commits}
        with echo_server() as (echo, echo_proc):
            for _ in range(args.rounds):
                for commit, root in roots.items():
                    for phase in flat_out(root, echo, echo_proc.pid, args):
                        rates[commit].append(phase["per_second"])
                        costs[commit].append(phase["app_cpu"] / phase["per_second"] * 1e6)
    print(
        f"\nFlat out, T={args.tables}: {args.rounds} rounds of {args.repeats} windows of "
        f"{args.flat_seconds:g} s per version, the versions alternating\n"
    )
    print("| commit | actions/s (each window) | median | server µs/action (each) | median |")
    print("|---|---|---:|---|---:|")
    for commit in args.commits:
        each_rate = ", ".join(f"{r:.0f}" for r in rates[commit])
        each_cost = ", ".join(f"{c:.0f}" for c in costs[commit])
        print(
            f"| {commit} | {each_rate} | {statistics.median(rates[commit]):.0f} | "
            f"{each_cost} | {statistics.median(costs[commit]):.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
