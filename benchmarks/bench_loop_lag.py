"""The server's responsiveness while replay pages are flooded (issue 41, item 3).

A real `python -m hollywood_gin` on loopback plays 4 hands to their end (as
`bench_abuse`'s `replay_flood` does), then a probe asks `GET /healthz` 20 times a
second (answered by the app before any routing: a round trip measures how soon the
event loop gets to it), 10 s without a flood, 10 s while another process (nice 10, so
its own CPU is not the server's) fetches those hands' replay pages from 127.0.0.2 and
127.0.0.3 at 18 requests a second each, and 10 s after. Printed: the probe's median
and p99, the server's CPU in % of one core, and the load average, per phase.

    python -m benchmarks.bench_loop_lag                    # this tree
    python -m benchmarks.bench_loop_lag --commit 54c08c2   # before issue 41
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.bench_abuse import cpu_seconds, finish_hands, server
from benchmarks.serve import REPO, export

FLOOD = r"""
import asyncio, sys, time, httpx
base, tables, seconds = sys.argv[1], sys.argv[2].split(","), float(sys.argv[3])
async def one(local):
    transport = httpx.AsyncHTTPTransport(local_address=local)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30) as http:
        end, n, at = time.monotonic() + seconds, 0, time.monotonic()
        while time.monotonic() < end:
            async with http.stream("GET", f"/t/{tables[n % len(tables)]}/hands/1") as r:
                async for _ in r.aiter_raw():  # the bytes only: the client's CPU is not the test
                    pass
            n, at = n + 1, at + 1 / 18
            await asyncio.sleep(max(0.0, at - time.monotonic()))
async def main():
    await asyncio.gather(one("127.0.0.2"), one("127.0.0.3"))
asyncio.run(main())
"""


def probe(base: str, seconds: float) -> list[float]:
    """`/healthz` round trips (ms), 20 a second for `seconds`."""
    out = []
    with httpx.Client(base_url=base, timeout=30) as http:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            began = time.perf_counter()
            http.get("/healthz")
            out.append((time.perf_counter() - began) * 1000)
            time.sleep(0.05)
    return out


def line(phase: str, samples: list[float], cpu: float) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    load = os.getloadavg()[0]
    return (
        f"{phase:<8} {len(ordered):>5} {statistics.median(ordered):>8.1f}ms {p99:>8.1f}ms "
        f"{100 * cpu:>5.0f} {load:>6.2f}"
    )


def run(root: Path, seconds: float) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="gin-lag-") as tmp,
        server(root, Path(tmp) / "tables.sqlite3") as (base, proc),
    ):
        tables = asyncio.run(finish_hands(base, 4))
        print(f"{'phase':<8} {'asks':>5} {'median':>10} {'p99':>10} {'cpu%':>5} {'load':>6}")
        for phase in ("idle", "flood", "after"):
            flood = None
            if phase == "flood":
                flood = subprocess.Popen(
                    [
                        *("nice", "-n", "10", sys.executable, "-c", FLOOD),
                        *(base, ",".join(tables), str(seconds + 2)),
                    ]
                )
                time.sleep(1)
            cpu, began = cpu_seconds(proc), time.monotonic()
            samples = probe(base, seconds)
            cpu = (cpu_seconds(proc) - cpu) / (time.monotonic() - began)
            print(line(phase, samples, cpu), flush=True)
            if flood is not None:
                flood.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0, help="per phase")
    parser.add_argument("--commit", help="run the server of this commit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gin-lag-src-") as tmp:
        root = export(args.commit, Path(tmp)) if args.commit else REPO
        label = f"commit {args.commit}" if args.commit else "this tree"
        print(f"{label}: /healthz during a replay flood")
        run(root, args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
