"""What the collector policy (`serve.tune_gc`) could leak: sockets opened and closed.

`serve.tune_gc` freezes whatever survives a collection, so no collection walks it
again (docs/performance.md). A frozen object is still freed by its reference count;
what it could leak is a reference cycle that becomes garbage after it was frozen,
which no collection finds. This opens and closes `--sockets` sockets (both seats of
a new table each pair: its creation, the seat's join, the upgrade, the hello and the
first state) against the server's app and protocols (`serve.uvicorn_config`) in this
process, under the server's policy; a load generator of its own process opens them,
so that the client's objects are not counted. Then, every socket closed, the server
unfreezes its heap and collects all of it with `gc.DEBUG_SAVEALL`: what that finds
is what the policy left behind, printed with its types and the collection's time.
A warm-up (`--warm` sockets) and the same measurement before take start-up's one-off
garbage out of the count.

    python -m benchmarks.bench_gc                      # 10,000 sockets
    python -m benchmarks.bench_gc --sockets 400 --warm 40   # a check
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

import orjson
import uvicorn

from benchmarks.rawsocket import connect, frame
from benchmarks.serve import LOAD_ENV, REPO, free_port, raise_open_files
from hollywood_gin.config import Settings
from hollywood_gin.main import create_app
from hollywood_gin.serve import collect_young, tune_gc, uvicorn_config

CONCURRENCY = 32


def client(base: str, sockets: int) -> int:
    """Open `sockets` sockets, two a table (both seats), each to its first state; close."""
    import httpx

    from benchmarks.bench_capacity import posted

    async def run() -> None:
        gate = asyncio.Semaphore(CONCURRENCY)
        ws_base = base.replace("http://", "ws://")
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:

            async def seat(url: str, token: str, number: int) -> None:
                sock = await connect(url)
                first: asyncio.Future[None] = asyncio.get_running_loop().create_future()

                def opening(raw: bytes) -> None:
                    message = orjson.loads(raw)
                    mine = message.get("type") == "state" and message.get("you") == number
                    if mine and not first.done():
                        first.set_result(None)

                sock.on_message = opening
                sock.send(frame(orjson.dumps({"type": "hello", "token": token})))
                await asyncio.wait_for(first, 120)
                assert sock.transport is not None
                sock.transport.close()
                await sock.closed

            async def table() -> None:
                async with gate:
                    made = await posted(http, "/api/tables", {"name": "Ann"})
                    joined = await posted(http, f"/api/tables/{made['table_id']}/seats", {})
                    url = f"{ws_base}/ws/tables/{made['table_id']}"
                    await seat(url, made["token"], 0)
                    await seat(url, joined["token"], 1)

            await asyncio.gather(*(table() for _ in range(sockets // 2)))

    asyncio.run(run())
    return 0


def leftovers() -> tuple[int, int, int, float, collections.Counter[str]]:
    """The collection the server would make next (young objects), then its whole heap
    unfrozen and collected: (young garbage, objects walked, garbage left behind by the
    policy, the full collection's seconds, the types of what it left)."""
    young = gc.collect(0)  # `freeze_survivors` freezes what it keeps
    gc.unfreeze()
    walked = len(gc.get_objects())
    gc.set_debug(gc.DEBUG_SAVEALL)
    start = time.perf_counter()
    try:
        found = gc.collect()
    finally:
        seconds = time.perf_counter() - start
        gc.set_debug(0)
    kinds = collections.Counter(type(o).__qualname__ for o in gc.garbage)
    gc.garbage.clear()
    gc.collect()
    return young, walked, found, seconds, kinds


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
        settings = Settings.from_env()
        server = uvicorn.Server(uvicorn_config(settings, create_app(settings)))
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        base = f"http://127.0.0.1:{port}"

        async def load(sockets: int) -> float:
            start = time.perf_counter()
            cmd = [sys.executable, "-m", "benchmarks.bench_gc", "--client", base]
            proc = await asyncio.create_subprocess_exec(
                *cmd, "--sockets", str(sockets), cwd=REPO, stdout=subprocess.DEVNULL
            )
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
            took = await load(args.sockets)
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
    parser.add_argument("--client", help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_open_files()
    if args.client:
        return client(args.client, args.sockets)
    # The server's event loop (uvloop where installed), as `uvicorn.Server.run` makes it.
    loop_factory = uvicorn.Config(app=None, loop=args.loop).get_loop_factory()
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(serve_and_measure(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
