"""Tracked objects a move leaves alive for the collector, by type, in process.

Run: `python -m benchmarks.bench_tracked --tables 50 --rounds 40`

At human pace a table's objects from one move live until its next move, seconds
later, so each young collection walks every tracked object a move leaves behind
(docs/research/performance-log.md "The seats' views for the collector"). T tables with both seats'
connections play random legal moves (`benchmarks.compat.next_actions`) through the
web layer's own `Session.handle` fed the client's frame, with a store that keeps
nothing, as `bench_stages` does; the outboxes are emptied after each round (what
each socket's writer would take). Before each round everything alive is frozen
(`gc.freeze`, the collector off), so after it `gc.get_objects(0)` is exactly what
the round made and left alive: printed per action, by type. A count, not a time:
the machine's load does not move it (the load average is printed all the same).
The sockets' own objects (uvicorn, the reader's wait) are not in it.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import os
import random
import time
from types import SimpleNamespace

import orjson

from benchmarks.compat import next_actions
from benchmarks.nullstore import NullStore


async def count(tables: int, rounds: int, seed: int) -> tuple[int, collections.Counter[str]]:
    """(actions counted, the types of the tracked objects they left alive)."""
    from hollywood_gin.config import Settings
    from hollywood_gin.tables.hub import Connection, Hub
    from hollywood_gin.tables.lifecycle import assemble
    from hollywood_gin.web.socket.endpoint import Session

    store = NullStore()
    await store.open()
    hub = Hub(max_tabs_per_seat=5, max_spectators=20)
    registry = assemble(store, hub, expiry_seconds=1e9, rng=random.Random(seed))
    settings = Settings(ws_messages_per_second=1e9, ws_burst=1_000_000)
    app = SimpleNamespace(state=SimpleNamespace(build="bench"))
    rng = random.Random(seed + 1)
    made = []
    for _ in range(tables):
        table, _ = await registry.create({"rules": "standard", "scoring": "hollywood"}, "Ann")
        await registry.join(table.id, "Bob")
        sessions = []
        conns = []
        for seat in (0, 1):
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
    kinds: collections.Counter[str] = collections.Counter()
    actions = 0
    warm = 5  # rounds not counted: the tables' first frames make their kept parts
    for round_ in range(warm + rounds):
        sends = []
        for table, sessions, _ in made:
            for seat, action in next_actions(table, rng):
                wire = {k: v for k, v in action.items() if k != "deadwood"}
                message = {"type": "action", "version": table.match.version, "action": wire}
                sends.append((sessions[seat], orjson.dumps(message)))
        if round_ >= warm:
            actions += len(sends)
        gc.disable()
        gc.freeze()
        try:
            for session, frame in sends:
                await session.handle(frame)
            for _, _, conns in made:
                for conn in conns:
                    conn._frames.clear()
            del sends
            young = gc.get_objects(0)
            if round_ >= warm:
                kinds.update(type(o).__qualname__ for o in young)
            del young
        finally:
            gc.unfreeze()
            gc.enable()
    await store.close()
    return actions, kinds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--top", type=int, default=12, help="types shown")
    args = parser.parse_args()
    actions, kinds = asyncio.run(count(args.tables, args.rounds, args.seed))
    total = sum(kinds.values())
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.tables} tables, {actions} actions (load average {load})")
    print(f"tracked objects left alive an action: {total / actions:.1f}")
    for name, n in kinds.most_common(args.top):
        print(f"  {n / actions:6.2f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
