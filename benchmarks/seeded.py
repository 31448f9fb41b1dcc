"""`python -m benchmarks.seeded [--null-store] [--outside-stages LIB] MODULE ARGS...`: run
`python -m MODULE ARGS...` (`--null-store`: the server with a store that keeps nothing;
`--outside-stages`: callgrind collecting only outside `bench_stages`' stages, `Outside`)
with its
randomness seeded and its WebSocket keepalive pings off, for counts that repeat
(`bench_instructions`).

Seeded: `secrets`' tokens (table ids, seat tokens: the same texts in every run, and so
the same dicts), and each `secrets.SystemRandom()` made (each table's dealer: its first
dealer, salts and reshuffles) a `random.Random` of its own, seeded by the order in which
it was made, so a table's reshuffles do not depend on how its moves interleave with
other tables'. Keepalive pings go by the wall clock, which valgrind stretches: off
(uvicorn's `ws_ping_interval=None`, the server's own sweep by
`HOLLYWOOD_GIN_WS_PING_SECONDS=0`). Nothing else of the server changes.
"""

from __future__ import annotations

import base64
import itertools
import os
import random
import runpy
import secrets
import sys
from typing import Any


def seed(value: int = 7) -> None:
    """Seed what the server draws from `secrets`."""
    rng = random.Random(value)
    made = itertools.count()

    def token_bytes(nbytes: int | None = 32) -> bytes:
        return rng.randbytes(32 if nbytes is None else nbytes)

    def token_urlsafe(nbytes: int | None = 32) -> str:
        return base64.urlsafe_b64encode(token_bytes(nbytes)).rstrip(b"=").decode("ascii")

    def token_hex(nbytes: int | None = 32) -> str:
        return token_bytes(nbytes).hex()

    def system_random(*_: Any) -> random.Random:
        return random.Random(f"{value} {next(made)}")

    secrets.token_bytes = token_bytes
    secrets.token_urlsafe = token_urlsafe
    secrets.token_hex = token_hex
    secrets.SystemRandom = system_random  # type: ignore[assignment,misc]
    if _dealers_share():
        made = itertools.count()  # the shared one made on import is no table's


def _dealers_share() -> bool:
    """Since 6eaab2a the dealers share one module-level `SystemRandom` (made on import,
    here seeded): each table's reshuffles would then depend on how the tables' moves
    interleave, and every version since would play other deals than the ones before
    (frames of 2,251 bytes, not 2,249, and ~9,500 more instructions an action in
    `bench_instructions --serial`: other games, not other code). A dealer made
    without an `rng` gets one of its own again, as each made before."""
    from hollywood_gin.engine import dealer

    if not hasattr(dealer, "SYSTEM_RANDOM"):
        return False
    init = dealer.Dealer.__init__

    def own_rng(self: Any, rng: random.Random | None = None, *args: Any, **kwargs: Any) -> None:
        init(self, secrets.SystemRandom() if rng is None else rng, *args, **kwargs)

    dealer.Dealer.__init__ = own_rng  # type: ignore[method-assign]
    return True


def no_pings() -> None:
    # The server's own keepalive sweep (`connections.Keepalive`) reads the setting.
    os.environ["HOLLYWOOD_GIN_WS_PING_SECONDS"] = "0"
    import uvicorn

    run = uvicorn.run

    def quiet_run(app: Any, **kwargs: Any) -> None:
        kwargs["ws_ping_interval"] = None
        run(app, **kwargs)

    uvicorn.run = quiet_run


def null_store() -> None:
    """The server's store one that keeps nothing (`benchmarks.nullstore`)."""
    import hollywood_gin.tables.lifecycle as lifecycle
    from benchmarks.nullstore import NullStore

    lifecycle.open_store = lambda *_, **__: NullStore()


# Extra in-process stages left out with `--outside-stages`, beside `bench_stages.STAGES`:
# the frame's parse itself (`Session.handle` is a coroutine, so counted apart here too).
EXTRA_STAGES = [("frame parse", "hollywood_gin.web.socket.inbound", None, "parse")]


class Outside:
    """Callgrind collects only outside `bench_stages`' stages (and `EXTRA_STAGES`): off
    from a stage's entry to its return, a coroutine's off at each of its steps (from
    its resumption to its next wait), nested stages counted once. `lib` is the client
    requests' library of `bench_stage_instructions.build`."""

    def __init__(self, lib: str) -> None:
        import ctypes

        self.lib = ctypes.CDLL(lib)
        self.depth = 0

    def enter(self) -> None:
        self.depth += 1
        if self.depth == 1:
            self.lib.gin_toggle()

    def leave(self) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.lib.gin_toggle()

    def plain(self, fn: Any) -> Any:
        me = self

        def run(*args: Any, **kwargs: Any) -> Any:
            me.enter()
            try:
                return fn(*args, **kwargs)
            finally:
                me.leave()

        return run

    def coroutine(self, fn: Any) -> Any:
        import types

        me = self

        @types.coroutine
        def steps(coro: Any) -> Any:
            value: Any = None
            error: BaseException | None = None
            while True:
                me.enter()
                try:
                    step = coro.send(value) if error is None else coro.throw(error)
                except StopIteration as done:
                    return done.value
                finally:
                    me.leave()
                try:
                    value, error = (yield step), None
                except BaseException as exc:  # thrown in (a cancellation): on to the stage
                    value, error = None, exc

        async def run(*args: Any, **kwargs: Any) -> Any:
            return await steps(fn(*args, **kwargs))

        return run

    def install(self) -> None:
        import importlib
        import inspect

        from benchmarks.bench_stages import STAGES

        for _, module_name, owner_name, attr in [*STAGES, *EXTRA_STAGES]:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            owner = module if owner_name is None else getattr(module, owner_name, None)
            fn = getattr(owner, attr, None)
            if fn is None:
                continue
            wrapped = self.coroutine(fn) if inspect.iscoroutinefunction(fn) else self.plain(fn)
            setattr(owner, attr, wrapped)
            if owner_name is None:  # modules that imported the function by name
                for other in ("hollywood_gin.tables.hub", "hollywood_gin.web.socket.endpoint"):
                    mod = importlib.import_module(other)
                    if getattr(mod, attr, None) is fn:
                        setattr(mod, attr, wrapped)


def main() -> None:
    args = sys.argv[1:]
    nothing_kept = outside = None
    while args[0].startswith("--"):
        if args[0] == "--null-store":
            nothing_kept, args = True, args[1:]
        elif args[0] == "--outside-stages":
            outside, args = args[1], args[2:]
        else:
            raise SystemExit(f"benchmarks.seeded: unknown option {args[0]}")
    module, *rest = args
    seed()
    no_pings()
    if nothing_kept:
        null_store()
    if outside:
        Outside(outside).install()
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
