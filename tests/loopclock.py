"""The running event loop's clock, moved by the test: a timer (`asyncio.sleep`,
`call_later`, `call_at`) fires when the test moves the clock past it, never because
the machine was slow. So a test of a delay counts what happened before and after it
instead of leaving a margin of wall-clock time that a busy machine may overrun."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager


class LoopClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    async def advance(self, seconds: float) -> None:
        """Move the clock on; the timers now due run (a few turns of the loop)."""
        self.now += seconds
        for _ in range(5):
            await asyncio.sleep(0)


@contextmanager
def loop_clock() -> Iterator[LoopClock]:
    """The running loop's `time` replaced by a clock only the test moves (asyncio's
    own loop reads its clock through that method alone). Inside, wait on events, not
    on `asyncio.sleep(x > 0)`: nothing moves the clock but `advance`."""
    loop = asyncio.get_running_loop()
    clock = LoopClock(loop.time())
    loop.time = clock.time  # type: ignore[method-assign]
    try:
        yield clock
    finally:
        del loop.time
