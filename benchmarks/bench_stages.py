"""One move's server work, stage by stage, in process: where an action's CPU goes.

Run: `pip install -e '.[dev]' && python -m benchmarks.bench_stages`

T tables (default 100), two seats' connections each and a spectator's on every
tenth, play random legal moves (a knock half the time it is offered) through the
web layer's own `Session.handle`, fed the frame a client sends (`{"type":
"action", ...}` as bytes), on a socket stub: so the frame's parse and validation,
the rate limit, the registry's lock and section task, `apply`, the store's
hand-off, the views, their encoding and the outboxes all run as on the server.
The tables move in turn, one action each per round (their moves interleave as on
a server). Left out, and measured by `bench_server`'s relay in the same run
instead: the socket's frames themselves (uvicorn and websockets reading one
frame and writing 2.1).

Each stage's time is the thread's CPU time (`time.thread_time_ns`, so that a busy
machine's preemption is not counted) around the functions that make it, exclusive
of the stages inside it, summed over every action and divided by the actions: with
one table moving at a time and a store that never waits, nothing else runs inside a
stage. Reading that clock costs about 1 µs a call, so the clock's own cost is
measured first (a timed function that does nothing, alone and inside another) and
taken off each stage for each of its calls and of the calls inside it. The load
client's own work (choosing an action from the seat's view) is timed apart and
left out. The SQLite store's cost is the process's CPU with the real
`SqliteStore` less with the store that keeps nothing, both runs with every table
moving at once (so appends share commits as on a server) and the clock off.
Each figure is the median of `--repeats` repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import inspect
import random
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson

from benchmarks.compat import next_actions
from benchmarks.nullstore import NullStore


class Clock:
    """Exclusive time per stage: a stage's time less the stages called inside it."""

    def __init__(self) -> None:
        self.spent: dict[str, int] = defaultdict(int)
        self.calls: dict[str, int] = defaultdict(int)
        self.inner_calls: dict[str, int] = defaultdict(int)
        self._inner = [0]
        self._names = [""]
        self.on = True

    def clear(self) -> None:
        self.spent.clear()
        self.calls.clear()
        self.inner_calls.clear()

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        clock = self

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                if not clock.on:
                    return await fn(*args, **kwargs)
                clock._inner.append(0)
                clock.calls[name] += 1
                clock.inner_calls[clock._names[-1]] += 1
                clock._names.append(name)
                began = time.thread_time_ns()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    took = time.thread_time_ns() - began
                    clock._names.pop()
                    inner = clock._inner.pop()
                    clock.spent[name] += took - inner
                    clock._inner[-1] += took

            return run_async

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            if not clock.on:
                return fn(*args, **kwargs)
            clock._inner.append(0)
            clock.calls[name] += 1
            clock.inner_calls[clock._names[-1]] += 1
            clock._names.append(name)
            began = time.thread_time_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                took = time.thread_time_ns() - began
                clock._names.pop()
                inner = clock._inner.pop()
                clock.spent[name] += took - inner
                clock._inner[-1] += took

        return run


# (stage, module, owner, attribute): what is timed; a stage may take several functions,
# and each version's own names (before and after the registry's split into a writer)
# are listed: a name a version does not have is skipped.
STAGES = [
    ("frame parse and validation", "hollywood_gin.web.socket.endpoint", "Session", "handle"),
    ("action to engine, errors", "hollywood_gin.web.socket.endpoint", "Session", "act"),
    ("lock, section task, settle", "hollywood_gin.tables.registry", "Registry", "act"),
    ("lock, section task, settle", "hollywood_gin.tables.moves", "Moves", "act"),
    ("lock, section task, settle", "hollywood_gin.tables.registry", "Registry", "_locked"),
    ("lock, section task, settle", "hollywood_gin.tables.writer", "Writer", "change"),
    ("lock, section task, settle", "hollywood_gin.tables.writer", "Writer", "run"),
    ("apply (rules)", "hollywood_gin.engine.match", "Match", "apply"),
    ("store hand-off", "hollywood_gin.tables.registry", "Registry", "_commit"),
    ("store hand-off", "hollywood_gin.tables.writer", "Writer", "_append"),
    ("after-change hooks", "hollywood_gin.tables.registry", "Registry", "_changed"),
    ("after-change hooks", "hollywood_gin.tables.writer", "Writer", "tell"),
    ("views (engine)", "hollywood_gin.engine.match", "Match", "view"),
    ("state message (players, wire)", "hollywood_gin.tables.hub", None, "state_message"),
    ("state message (players, wire)", "hollywood_gin.tables.hub", "Hub", "_state_frames"),
    ("encoding (orjson, shared parts)", "hollywood_gin.tables.hub", "Hub", "_encode"),
    ("encoding (orjson, shared parts)", "hollywood_gin.tables.frames", "StateFrames", "frame"),
    ("broadcast and outboxes", "hollywood_gin.tables.hub", "Hub", "broadcast"),
    ("broadcast and outboxes", "hollywood_gin.tables.hub", "Connection", "send"),
]


def instrument(clock: Clock) -> None:
    import importlib

    for stage, module_name, owner_name, attr in STAGES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # a version without that module
            continue
        owner = module if owner_name is None else getattr(module, owner_name, None)
        if owner is None or not hasattr(owner, attr):
            continue
        setattr(owner, attr, clock.timed(stage, getattr(owner, attr)))
        if owner_name is None:
            # Modules that imported the function by name call their own reference.
            for other in ("hollywood_gin.tables.hub",):
                mod = importlib.import_module(other)
                if getattr(mod, attr, None) is not None:
                    setattr(mod, attr, getattr(owner, attr))


async def play(
    store_kind: str, tables: int, rounds: int, seed: int, staged: bool
) -> tuple[int, float]:
    """Play `rounds` actions per table; return (actions, CPU seconds of the server's
    work: the loop thread's less the client's part when `staged`, else the process's).

    `staged`: one table moving at a time, the stage clock on; else all tables at once
    (each round one action per table, gathered), the clock off."""
    from hollywood_gin.config import Settings
    from hollywood_gin.tables.hub import Connection, Hub

    try:  # the tables put together in one place (since `lifecycle.assemble`)
        from hollywood_gin.tables.lifecycle import assemble
    except ImportError:  # a version before it: the registry built its collaborators
        from hollywood_gin.tables.registry import Registry as assemble  # type: ignore[assignment]
    from hollywood_gin.tables.sqlite_store import SqliteStore
    from hollywood_gin.web.socket.endpoint import Session

    CLOCK.on = False
    folder = tempfile.TemporaryDirectory(prefix="gin-bench-stages-")
    store: Any = (
        SqliteStore(Path(folder.name) / "t.sqlite3") if store_kind == "sqlite" else NullStore()
    )
    await store.open()
    hub = Hub(max_tabs_per_seat=5, max_spectators=20)
    registry = assemble(store, hub, expiry_seconds=1e9, rng=random.Random(seed))
    settings = Settings(ws_messages_per_second=1e9, ws_burst=1_000_000)
    app = SimpleNamespace(state=SimpleNamespace(build="bench"))
    rng = random.Random(seed + 1)
    made = []
    for i in range(tables):
        table, _ = await registry.create({"rules": "standard", "scoring": "hollywood"}, "Ann")
        await registry.join(table.id, "Bob")
        sessions = []
        conns = []
        for seat in (0, 1, None) if i % 10 == 0 else (0, 1):
            session = Session(
                SimpleNamespace(app=app),  # type: ignore[arg-type]
                table,
                registry,
                settings,
                time.monotonic,
            )
            session.conn = Connection(seat)
            hub.attach(table, session.conn)
            sessions.append(session)
            conns.append(session.conn)
        made.append((table, sessions, conns))
    client_ns = 0

    def choose(table: Any) -> list[tuple[int, dict[str, Any]]]:
        """The actions the client sends next, by seat (chosen from the seats' views)."""
        return [
            (seat, {k: v for k, v in action.items() if k != "deadwood"})
            for seat, action in next_actions(table, rng)
        ]

    async def step(table: Any, sessions: list[Any], conns: list[Any]) -> int:
        nonlocal client_ns
        on, CLOCK.on = CLOCK.on, False  # the client's work is no stage of the server's
        began = time.thread_time_ns()
        actions = choose(table)
        client_ns += time.thread_time_ns() - began
        CLOCK.on = on
        for seat, action in actions:
            began = time.thread_time_ns()
            frame = orjson.dumps(
                {"type": "action", "version": table.match.version, "action": action}
            )
            client_ns += time.thread_time_ns() - began
            await sessions[seat].handle(frame)
        for conn in conns:
            conn._frames.clear()  # what each socket's writer task would take
        return len(actions)

    gc.collect()
    gc.freeze()
    acted = 0
    # Warm-up: one round (not counted), then the clock counts from zero.
    for table, sessions, conns in made:
        await step(table, sessions, conns)
    CLOCK.clear()
    client_ns = 0
    CLOCK.on = staged
    before = time.thread_time() if staged else time.process_time()
    for _ in range(rounds):
        if staged:
            for table, sessions, conns in made:
                acted += await step(table, sessions, conns)
        else:
            acted += sum(await asyncio.gather(*(step(*m) for m in made)))
    cpu = (time.thread_time() if staged else time.process_time()) - before
    CLOCK.on = False
    await store.close()
    folder.cleanup()
    return acted, cpu - client_ns / 1e9


CLOCK = Clock()


def calibrate(rounds: int = 20_000) -> tuple[float, float]:
    """The clock's own cost in ns: what a timed call that does nothing counts for
    itself, and what it adds to the stage it is called from."""
    clock = Clock()
    noop = clock.timed("inner", lambda: None)
    outer = clock.timed("outer", lambda: noop())
    for _ in range(rounds):
        noop()
    own = clock.spent["inner"] / rounds
    clock.clear()
    for _ in range(rounds):
        outer()
    return own, clock.spent["outer"] / rounds - own


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=60, help="actions per table per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    instrument(CLOCK)
    try:
        import uvloop  # as the server runs (uvicorn[standard])

        run: Callable[..., Any] = uvloop.run
    except ImportError:
        run = asyncio.run
    own, added = calibrate()
    print(f"the clock's own cost: {own:.0f} ns per timed call, {added:.0f} ns added to its caller")
    stages: dict[str, list[float]] = defaultdict(list)
    totals: dict[str, list[float]] = defaultdict(list)
    for repeat in range(args.repeats):
        actions, cpu = run(play("none", args.tables, args.rounds, repeat, staged=True))
        clock_ns = sum(CLOCK.calls.values()) * own + sum(CLOCK.inner_calls.values()) * added
        totals["staged"].append((cpu - clock_ns / 1e9) / actions * 1e6)
        for name, ns in CLOCK.spent.items():
            ns -= CLOCK.calls[name] * own + CLOCK.inner_calls[name] * added
            stages[name].append(ns / actions / 1000)
        for store in ("none", "sqlite"):
            actions, cpu = run(play(store, args.tables, args.rounds, repeat, staged=False))
            totals[store].append(cpu / actions * 1e6)
    order = list(dict.fromkeys(stage for stage, *_ in STAGES))
    staged = statistics.median(totals["staged"])
    none = statistics.median(totals["none"])
    sqlite = statistics.median(totals["sqlite"])
    print(
        f"\nOne action's server work in process, {args.tables} tables, "
        f"{args.rounds} actions per table, median of {args.repeats} repeats; µs per action\n"
    )
    print("| stage | µs | share |")
    print("|---|---:|---:|")
    counted = 0.0
    for name in order:
        us = statistics.median(stages[name]) if stages[name] else 0.0
        counted += us
        print(f"| {name} | {us:.1f} | {us / staged:.0%} |")
    rest = staged - counted
    print(f"| event loop, tasks, the rest | {rest:.1f} | {rest / staged:.0%} |")
    print(f"| **all, one table at a time** (thread CPU less the clock's) | {staged:.1f} | 100% |")
    print(f"| all tables at once, the clock off, store that keeps nothing | {none:.1f} | |")
    print(f"| the same with SQLite (process CPU, its thread too) | {sqlite:.1f} | |")
    print(f"| so the SQLite store's own cost | {sqlite - none:.1f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
