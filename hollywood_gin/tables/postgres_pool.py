"""The shared store's connections to PostgreSQL: a pool that a cut-off call never shrinks.

A store call can be cut off without an answer: given up by the ownership
(`bounded.within`, after the ownership's `store_seconds`), past asyncpg's `command_timeout`, or on
a connection the database dropped. asyncpg then cancels the query over a second
connection and, before the pool may hand the connection out again, waits for the
server to confirm (up to `command_timeout`, and without end in older versions); a
server that never answers (paused, partitioned away) kept the connection taken that
long, and a few such calls left no connection at all: every move refused while the
health check passed (docs/scale-out.md "What happens when…", PostgreSQL is away). So
a connection whose call ended in anything but an answer from the server is closed at
once (`terminate`, no round trip), its slot goes back to the pool, and the next call
there connects afresh.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import asyncpg


async def _no_reset(con: asyncpg.Connection) -> None:
    """A pool release's reset: nothing beyond asyncpg's own rollback of an open transaction."""


# How every connection is made, the pool's and a held one's (`Held`).
CONNECT: dict[str, Any] = {
    # Durable before seen (docs/architecture.md "The path of a move"): never acknowledge
    # a commit not on disk.
    "server_settings": {"synchronous_commit": "on", "application_name": "hollywood-gin"},
    "command_timeout": 10,
    "timeout": 5,  # to connect: a database coming back must not hold a caller longer
}


class Sessions:
    """A pool of `size` connections to `url`, each call on one of them (`session`)."""

    def __init__(self, url: str, size: int) -> None:
        self.url = url
        self.size = size
        self._pool: asyncpg.Pool | None = None
        # Connections closed because their call was cut off (each replaced on next use).
        self.replaced = 0

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("store is not open")
        return self._pool

    async def connect(self) -> asyncpg.Connection:
        """A connection of its own, outside the pool (`Held`)."""
        return await asyncpg.connect(self.url, **CONNECT)

    async def open(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.url,
            min_size=1,
            max_size=self.size,
            **CONNECT,
            # asyncpg's default sends `pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *;
            # RESET ALL` on every release: a second round trip per commit. Nothing here
            # leaves session state behind (advisory locks are per transaction, no
            # cursors, no LISTEN, no SET), so a release only ends an open transaction.
            reset=_no_reset,
        )

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @contextlib.asynccontextmanager
    async def session(self, *, transaction: bool = False) -> AsyncIterator[asyncpg.Connection]:
        """A connection for one call (`transaction`: in one transaction, committed at the
        end of the block, rolled back on an error the server reported). Cut off (given
        up, cancelled, timed out, the connection lost): the connection is closed, not
        returned, and the pool makes a new one when next asked."""
        con = await self.pool.acquire()
        try:
            xact = con.transaction() if transaction else None
            if xact is not None:
                await xact.start()
            try:
                yield con
            except asyncpg.PostgresError:  # the server answered: the connection is sound
                if xact is not None and not con.is_closed():
                    await xact.rollback()
                raise
            if xact is not None:
                await xact.commit()
        except asyncpg.PostgresError:
            raise
        except BaseException:
            con.terminate()  # synchronous: no answer awaited from a server that may not give one
            self.replaced += 1
            raise
        finally:
            await self.pool.release(con)

    async def fetch(self, query: str, *args: object) -> list[asyncpg.Record]:
        async with self.session() as con:
            rows: list[asyncpg.Record] = await con.fetch(query, *args)
            return rows

    async def fetchval(self, query: str, *args: object) -> Any:
        async with self.session() as con:
            return await con.fetchval(query, *args)

    async def execute(self, query: str, *args: object) -> str:
        async with self.session() as con:
            status: str = await con.execute(query, *args)
            return status


class Held:
    """One connection kept for one caller that makes its calls one at a time (the
    appends' writer), connected on first use: a commit then costs no pool acquire and
    release (the pool's queue, its proxy object, an idle timer set and cancelled each
    time). As with `Sessions.session`, a call cut off without the server's answer
    closes the connection at once (`terminate`), and the next call connects afresh."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self._con: asyncpg.Connection | None = None

    async def fetch(self, query: str, *args: object) -> list[asyncpg.Record]:
        con = self._con
        if con is None or con.is_closed():
            con = self._con = await self.sessions.connect()
        try:
            rows: list[asyncpg.Record] = await con.fetch(query, *args)
        except asyncpg.PostgresError:  # the server answered: the connection is sound
            raise
        except BaseException:
            con.terminate()  # synchronous: no answer awaited from a server that may not give one
            self._con = None
            self.sessions.replaced += 1
            raise
        return rows

    async def close(self) -> None:
        con, self._con = self._con, None
        if con is not None and not con.is_closed():
            try:
                await con.close(timeout=5)
            except Exception:  # the database is away: nothing to say goodbye to
                con.terminate()
