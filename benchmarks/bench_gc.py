"""What the collector policy (`serve.tune_gc`) could leak: sockets opened and closed.

`serve.tune_gc` freezes whatever survives a collection, so no collection walks it
again (docs/performance.md). A frozen object is still freed by its reference count;
what it could leak is a reference cycle that becomes garbage after it was frozen,
which no collection finds. This opens and closes `--sockets` sockets (both seats of
a new table each pair: its creation, the seat's join, the upgrade, the hello and the
first state) against the server's app and protocols (`serve.uvicorn_config`) in this
process, under the server's policy; a load generator of its own process opens them,
so that the client's objects are not counted. Then, every socket closed, the server
unfreezes its heap and collects all of it: the objects that collection frees (counted
before and after it, by type) are what the policy left behind, printed with the
collection's time. A warm-up (`--warm` sockets) and the same measurement before take
start-up's one-off garbage out of the count.

A long uptime in small: `--waves` runs the sockets again and again, each wave's tables
played (`--moves` actions each, both seats open), closed and gone from memory (idle
after 1 s) before the next; after each the frozen objects, RSS, and the types whose
count grew since the first wave, which a leak shows whether or not a collection
could free it.

    python -m benchmarks.bench_gc                      # 10,000 sockets
    python -m benchmarks.bench_gc --sockets 400 --warm 40   # a check
    python -m benchmarks.bench_gc --sockets 1000 --waves 5 --moves 20   # waves
    python -m benchmarks.bench_gc --loop asyncio            # without uvloop (Windows)
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import uvicorn

from benchmarks.rawsocket import connect, frame
from benchmarks.serve import LOAD_ENV, REPO, free_port, raise_open_files
from hollywood_gin.config import Settings
from hollywood_gin.main import create_app
from hollywood_gin.serve import collect_young, tune_gc, uvicorn_config

CONCURRENCY = 32


def client(base: str, sockets: int, moves: int = 0) -> int:
    """Open `sockets` sockets, two a table (both seats), each to its first state; with
    `moves`, both seats open together and play that many actions; close."""
    import httpx

    from benchmarks.bench_capacity import posted
    from benchmarks.compat import playable

    async def run() -> None:
        gate = asyncio.Semaphore(CONCURRENCY)
        ws_base = base.replace("http://", "ws://")
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:

            async def opened(url: str, token: str, number: int, states: list[Any]) -> Any:
                sock = await connect(url)
                first: asyncio.Future[None] = asyncio.get_running_loop().create_future()

                def opening(raw: bytes) -> None:
                    message = orjson.loads(raw)
                    if message.get("type") != "state":
                        return
                    if message.get("you") == number and not first.done():
                        first.set_result(None)
                    if first.done():
                        states[number] = message

                sock.on_message = opening
                sock.send(frame(orjson.dumps({"type": "hello", "token": token})))
                await asyncio.wait_for(first, 120)
                return sock

            async def closed(sock: Any) -> None:
                assert sock.transport is not None
                sock.transport.close()
                await sock.closed

            async def table() -> None:
                async with gate:
                    made = await posted(http, "/api/tables", {"name": "Ann"})
                    joined = await posted(http, f"/api/tables/{made['table_id']}/seats", {})
                    url = f"{ws_base}/ws/tables/{made['table_id']}"
                    states: list[Any] = [None, None]
                    await closed(await opened(url, made["token"], 0, states))
                    await closed(await opened(url, joined["token"], 1, states))

            async def table_played() -> None:
                async with gate:
                    made = await posted(http, "/api/tables", {"name": "Ann"})
                    joined = await posted(http, f"/api/tables/{made['table_id']}/seats", {})
                    url = f"{ws_base}/ws/tables/{made['table_id']}"
                    states: list[Any] = [None, None]
                    mine = [
                        await opened(url, made["token"], 0, states),
                        await opened(url, joined["token"], 1, states),
                    ]
                    while None in states:
                        await asyncio.sleep(0.01)
                    await played_by(mine, states)
                    for sock in mine:
                        await closed(sock)

            async def played_by(mine: list[Any], states: list[Any]) -> None:
                for _ in range(moves):
                    version = max(int(s["version"]) for s in states)
                    asked = [n for n, s in enumerate(states) if playable(s["legal"])]
                    if not asked:
                        return
                    action = playable(states[asked[0]]["legal"])[0]
                    message = {"type": "action", "version": version, "action": action}
                    mine[asked[0]].send(frame(orjson.dumps(message)))
                    for _ in range(500):  # five seconds at most, then on
                        if min(int(s["version"]) for s in states) > version:
                            break
                        await asyncio.sleep(0.01)

            one = table_played if moves else table
            await asyncio.gather(*(one() for _ in range(sockets // 2)))

    asyncio.run(run())
    return 0


def leftovers() -> tuple[int, int, int, float, collections.Counter[str]]:
    """The collection the server would make next (young objects), then its whole heap
    unfrozen and collected: (young garbage, objects walked, garbage left behind by the
    policy, the full collection's seconds, the types of what it left).

    What it left is counted as the objects the full collection freed (tracked objects
    before it less those after), by type: `gc.collect()`'s own count misses a cycle
    through a suspended generator, whose finalizer breaks it during the collection
    (websockets' parser and its connection: 0 counted while 43 went)."""
    young = gc.collect(0)  # `freeze_survivors` freezes what it keeps
    gc.unfreeze()
    kinds = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    walked = sum(kinds.values())
    start = time.perf_counter()
    gc.collect()
    seconds = time.perf_counter() - start
    gc.unfreeze()  # `freeze_survivors` froze what it kept
    kinds.subtract(type(o).__qualname__ for o in gc.get_objects())
    kinds = +kinds  # the types that fell
    # A full collection untracks the tuples and dicts that hold only untracked
    # values (they stay, uncounted): not counted as freed.
    for kept in ("tuple", "dict"):
        kinds.pop(kept, None)
    return young, walked, sum(kinds.values()), seconds, kinds


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def heap_kinds() -> collections.Counter[str]:
    """Every tracked object's type, the heap unfrozen for the count and frozen again."""
    gc.unfreeze()
    kinds = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    gc.freeze()
    return kinds


async def waved(wave: int, registry: Any, first: collections.Counter[str]) -> None:
    """After a wave: its tables out of memory, then the frozen objects and RSS, and
    the types whose count grew since the first wave."""
    for _ in range(600):  # a minute at most
        if not len(registry):
            break
        await asyncio.sleep(0.1)
    gc.collect(0)
    print(
        f"wave {wave}: {len(registry)} tables in memory, frozen {gc.get_freeze_count():,} "
        f"objects, RSS {rss_mib():.1f} MiB, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    if wave == 1:
        first.update(heap_kinds())
    else:
        grown = heap_kinds()
        grown.subtract(first)
        print("  grown since wave 1:", [kv for kv in grown.most_common(8) if kv[1] > 0])


async def serve_and_measure(args: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="gin-bench-gc-") as tmp:
        os.environ.update(LOAD_ENV)
        os.environ.update(
            {
                "HOLLYWOOD_GIN_HOST": "127.0.0.1",
                "HOLLYWOOD_GIN_PORT": str(port),
                "HOLLYWOOD_GIN_DATA_FILE": str(Path(tmp) / "tables.sqlite3"),
            }
        )
        if args.waves > 1:  # each wave's tables leave memory before the next
            os.environ["HOLLYWOOD_GIN_IDLE_TABLE_SECONDS"] = "1"
        settings = Settings.from_env()
        app = create_app(settings)
        server = uvicorn.Server(uvicorn_config(settings, app))
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        base = f"http://127.0.0.1:{port}"

        registry = app.state.registry

        async def load(sockets: int, moves: int = 0) -> float:
            start = time.perf_counter()
            cmd = [sys.executable, "-m", "benchmarks.bench_gc", "--client", base]
            cmd += ["--sockets", str(sockets), "--moves", str(moves)]
            proc = await asyncio.create_subprocess_exec(*cmd, cwd=REPO, stdout=subprocess.DEVNULL)
            if await proc.wait() != 0:
                raise SystemExit("the load generator failed")
            # The server's side of each close: its tasks end, its protocols go.
            while server.server_state.connections or server.server_state.tasks:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            return time.perf_counter() - start

        try:
            await load(args.warm)
            tune_gc()  # the server's policy, from here on
            young, walked, found, seconds, kinds = leftovers()
            print(f"warm-up ({args.warm} sockets): {young + found} objects of garbage")
            tune_gc()
            # And its clock (HOLLYWOOD_GIN_GC_SECONDS): more survivors frozen young.
            clock = asyncio.create_task(collect_young(settings.gc_seconds or 3600))
            before = gc.get_stats()
            took = 0.0
            first: collections.Counter[str] = collections.Counter()
            for wave in range(1, args.waves + 1):
                took += await load(args.sockets, args.moves)
                if args.waves > 1:
                    await waved(wave, registry, first)
            after = gc.get_stats()
            clock.cancel()
            runs = [a["collections"] - b["collections"] for a, b in zip(after, before, strict=True)]
            frozen = gc.get_freeze_count()
            young, walked, found, seconds, kinds = leftovers()
            print(
                f"{args.sockets:,} sockets opened and closed in {took:.0f} s "
                f"({runs[0]} young collections, {runs[1]} middle, {runs[2]} full); "
                f"frozen at the end: {frozen:,} objects; the next young collection "
                f"found {young:,} objects of garbage"
            )
            print(
                f"left behind: {found:,} objects of garbage "
                f"({found / args.sockets:.2f} a socket); the full collection walked "
                f"{walked:,} objects in {seconds * 1000:.0f} ms"
            )
            for name, count in kinds.most_common(12):
                print(f"  {count:>7,}  {name}")
            print(f"load average {os.getloadavg()}")
        finally:
            server.should_exit = True
            await serving


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=10_000)
    parser.add_argument("--warm", type=int, default=200, help="sockets before the count")
    parser.add_argument(
        "--loop", default="auto", choices=["auto", "asyncio"], help="uvicorn's event loop"
    )
    parser.add_argument("--moves", type=int, default=0, help="actions played a table")
    parser.add_argument("--waves", type=int, default=1, help="each tables played, closed, gone")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_open_files()
    if args.client:
        return client(args.client, args.sockets, args.moves)
    # The server's event loop (uvloop where installed), as `uvicorn.Server.run` makes it.
    loop_factory = uvicorn.Config(app=None, loop=args.loop).get_loop_factory()
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(serve_and_measure(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
