"""The whole server's instructions per action under valgrind's callgrind, per version:
a figure the shared machine's load does not move (CPU seconds do, by ±10 %).

Run: `python -m benchmarks.bench_instructions main HEAD --actions 300`

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
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.compat import playable
from benchmarks.serve import LOAD_ENV, export, free_port


class Table:
    def __init__(self, base: str) -> None:
        made = httpx.post(f"{base}/api/tables", json={"name": "Ann"}, timeout=120).json()
        joined = httpx.post(
            f"{base}/api/tables/{made['table_id']}/seats", json={"name": "Bob"}, timeout=120
        ).json()
        self.url = base.replace("http://", "ws://") + f"/ws/tables/{made['table_id']}"
        self.tokens = [made["token"], joined["token"]]
        self.sockets: list[ClientConnection] = []
        self.states: list[dict[str, Any]] = [{}, {}]

    async def open(self) -> None:
        for token in self.tokens:
            ws = await connect(self.url, max_size=None, open_timeout=300)
            await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
            self.sockets.append(ws)
        await self.until(lambda s: s.get("you") in (0, 1))

    async def until(self, done: Any) -> None:
        for seat, ws in enumerate(self.sockets):
            while not done(self.states[seat]) or self.states[seat].get("you") != seat:
                message = orjson.loads(await asyncio.wait_for(ws.recv(), 600))
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


async def play(tables: list[Table], per_table: int) -> int:
    """Every table plays until it has done `per_table` actions; the versions gained."""
    before: int = sum(t.states[0]["version"] for t in tables)

    async def run(table: Table) -> None:
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


def count(root: Path, args: argparse.Namespace, out: Path) -> float:
    port = free_port()
    env = dict(os.environ)
    env.update(LOAD_ENV)
    env.update(
        {
            "HOLLYWOOD_GIN_HOST": "127.0.0.1",
            "HOLLYWOOD_GIN_PORT": str(port),
            "HOLLYWOOD_GIN_DATA_FILE": str(out / "tables.sqlite3"),
            "HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "false",
            "PYTHONHASHSEED": "0",
            "PYTHONPATH": str(root),
        }
    )
    argv = [
        "valgrind", "--tool=callgrind", "--instr-atstart=no",
        f"--callgrind-out-file={out}/callgrind.out.%p",
        sys.executable, "-m", "hollywood_gin",
    ]  # fmt: skip
    proc = subprocess.Popen(argv, cwd=root, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(1)

        async def session() -> int:
            tables = [Table(base) for _ in range(args.tables)]
            for table in tables:
                await table.open()
            await play(tables, args.warm)
            control(proc.pid, "--zero")
            control(proc.pid, "--instr=on")
            done = await play(tables, args.actions // args.tables)
            control(proc.pid, "--dump")  # (switching counting off first loses the counts)
            for table in tables:
                for ws in table.sockets:
                    await ws.close()
            return done

        actions = asyncio.run(session())
    finally:
        proc.terminate()
        proc.wait(timeout=300)
    # The explicit dump (`--dump`, the file ending in .1) is the counted window.
    (dump,) = glob.glob(f"{out}/callgrind.out.*.1")
    found = re.search(r"^(?:summary|totals): (\d+)", Path(dump).read_text(), re.M)
    assert found, dump
    return int(found.group(1)) / actions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--warm", type=int, default=10, help="actions per table first")
    parser.add_argument("--actions", type=int, default=200, help="counted, all tables")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    results: dict[str, list[float]] = {c: [] for c in args.commits}
    with tempfile.TemporaryDirectory(prefix="gin-bench-instr-") as tmp:
        roots = {c: export(c, Path(tmp)) for c in args.commits}
        for n in range(args.rounds):
            for commit, root in roots.items():
                out = Path(tmp) / f"out-{commit}-{n}"
                out.mkdir()
                per = count(root, args, out)
                results[commit].append(per)
                print(f"{commit}: {per:,.0f} instructions per action", file=sys.stderr)
    print(f"\n{args.tables} tables, {args.actions} actions counted after {args.warm} each:\n")
    print("| commit | instructions per action (each round) |")
    print("|---|---|")
    for commit, each in results.items():
        print(f"| {commit} | {', '.join(f'{x:,.0f}' for x in each)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
