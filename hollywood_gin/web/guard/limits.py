"""Rate limits: a token bucket (one socket's messages), a bucket per key (requests and
new sockets per address) and a sliding window (tables per address per hour). The clock
is injected."""

from __future__ import annotations

import collections
from collections.abc import Callable


class TokenBucket:
    """`rate` messages per second with bursts up to `burst`; the clock is injected."""

    # One for each open socket: no `__dict__`.
    __slots__ = ("burst", "clock", "rate", "refused_in_a_row", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()
        # Messages refused in a row: a client that keeps flooding gets closed.
        self.refused_in_a_row = 0

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False


class WindowLimiter:
    """At most `limit` events per key within `window` seconds (tables per address per hour)."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float]) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._events: dict[str, collections.deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = self.clock()
        self._forget(now)
        events = self._events.setdefault(key, collections.deque())
        if len(events) >= self.limit:
            return False
        events.append(now)
        return True

    def _forget(self, now: float) -> None:
        # Drop old events everywhere, so memory is bounded by the last hour's clients.
        for key in list(self._events):
            events = self._events[key]
            while events and events[0] <= now - self.window:
                events.popleft()
            if not events:
                del self._events[key]


class KeyedBuckets:
    """A token bucket per key (`rate` per second, bursts up to `burst`), memory bounded:
    full buckets are forgotten, they would allow exactly what a new one allows."""

    PRUNE_EVERY = 4096

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._calls = 0

    def take(self, key: str) -> bool:
        now = self.clock()
        self._calls += 1
        if self._calls % self.PRUNE_EVERY == 0:
            self._prune(now)
        tokens, stamp = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        return True

    def _prune(self, now: float) -> None:
        full = self.burst / self.rate
        for key, (tokens, stamp) in list(self._buckets.items()):
            if tokens + (now - stamp) * self.rate >= self.burst or now - stamp > full:
                del self._buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)
