"""`python -m benchmarks.seeded [--null-store] MODULE ARGS...`: run `python -m MODULE
ARGS...` (`--null-store`: the server with a store that keeps nothing) with its
randomness seeded and its WebSocket keepalive pings off, for counts that repeat
(`bench_instructions`).

Seeded: `secrets`' tokens (table ids, seat tokens: the same texts in every run, and so
the same dicts), and each `secrets.SystemRandom()` made (each table's dealer: its first
dealer, salts and reshuffles) a `random.Random` of its own, seeded by the order in which
it was made, so a table's reshuffles do not depend on how its moves interleave with
other tables'. uvicorn's keepalive pings go by the wall clock, which valgrind stretches:
off (`ws_ping_interval=None`). Nothing else of the server changes.
"""

from __future__ import annotations

import base64
import itertools
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


def no_pings() -> None:
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


def main() -> None:
    args = sys.argv[1:]
    nothing_kept = args[0] == "--null-store"
    module, *rest = args[1:] if nothing_kept else args
    seed()
    no_pings()
    if nothing_kept:
        null_store()
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
