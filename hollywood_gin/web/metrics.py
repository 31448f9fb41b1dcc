"""Prometheus metrics at `GET /metrics`, when `HOLLYWOOD_GIN_METRICS=true`.

Each app has its own `CollectorRegistry` (no module-level state): live tables, the
tables let go from memory while idle, those loaded back by their clock and open
sockets (read when scraped), actions and errors by kind and code, and the latencies
of an action (asked to sent), of a store commit and of the computer's thinking;
prometheus-client's process, platform and GC collectors and a build-info series. No
label ever holds a table id, a name or a token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, get_args

from fastapi import FastAPI, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from hollywood_gin.tables.ownership import Shared
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.writer import Observer
from hollywood_gin.web.socket.messages import ErrorCode

if TYPE_CHECKING:
    # For the annotation only: the socket imports this module, and never the routes.
    from hollywood_gin.web.http.replay_pages import ReplayPages

# Seconds: a move takes milliseconds; a commit under a second; the computer up to seconds.
FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
THINK = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# The socket's error codes (docs/protocol-guide.md "Errors"), each its own label;
# anything else is "other".
ERROR_CODES = frozenset(get_args(ErrorCode))


class _Counts(Collector):
    """Counters kept by the tables themselves, read when scraped (name, help, value)."""

    def __init__(self) -> None:
        self.counts: list[tuple[str, str, Callable[[], float]]] = []

    def collect(self) -> Iterator[CounterMetricFamily]:
        for name, text, value in self.counts:
            yield CounterMetricFamily(name, text, value=value())


class Metrics(Observer):
    """The registry's observer, and the collectors `/metrics` shows."""

    def __init__(self, version: str = "", commit: str | None = None) -> None:
        self.collectors = CollectorRegistry()
        r = self.collectors
        # prometheus-client's own: the process (CPU, memory, open files, start time), the
        # Python platform and the garbage collector's passes (process_*, python_*).
        # Each is stateless, so every app's registry may show the same ones.
        for standard in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            r.register(standard)
        # hollywood_gin_build_info{version, commit} 1: which build a worker runs.
        Info("hollywood_gin_build", "The running build", registry=r).info(
            {"version": version, "commit": commit or ""}
        )
        self.tables = Gauge("hollywood_gin_tables", "Live tables in memory", registry=r)
        self.asleep = Gauge(
            "hollywood_gin_tables_asleep",
            "Tables let go from memory while idle, kept in the store (since the start)",
            registry=r,
        )
        self.sockets = Gauge("hollywood_gin_sockets", "Open WebSockets", registry=r)
        self.actions = Counter(
            "hollywood_gin_actions", "Actions applied, by kind", ["kind"], registry=r
        )
        self.errors = Counter(
            "hollywood_gin_errors", "Error answers on sockets, by code", ["code"], registry=r
        )
        self.action_seconds = Histogram(
            "hollywood_gin_action_seconds",
            "From an action asked for to its state sent to every socket",
            buckets=FAST,
            registry=r,
        )
        self.commit_seconds = Histogram(
            "hollywood_gin_commit_seconds",
            "A store write of an action's log entries",
            buckets=FAST,
            registry=r,
        )
        self.replay_builds = Counter(
            "hollywood_gin_replay_builds",
            "Finished hands whose replay page data was built (then kept)",
            registry=r,
        )
        self.seat_writes = Counter(
            "hollywood_gin_seat_writes",
            "Store writes of a table's seats (a seat taken, the card orders)",
            registry=r,
        )
        # The shared store's deadline sweep: tables claimed for their look, and rounds
        # failed; 0 with SQLite (docs/architecture.md "Deadlines nobody holds").
        self.counts = _Counts()
        r.register(self.counts)
        self.think_seconds = Histogram(
            "hollywood_gin_computer_think_seconds",
            "The computer opponent choosing a move, by strength",
            ["strength"],
            buckets=THINK,
            registry=r,
        )

    def watch_replays(self, pages: ReplayPages) -> None:
        """Count the replay pages' hands built (each once, then kept: issue 41)."""
        pages.on_build = self.replay_builds.inc

    def watch(self, registry: Registry) -> None:
        """Read the gauges from the registry when scraped; observe what it does."""
        self.tables.set_function(lambda: len(registry))
        self.asleep.set_function(registry.presence.asleep_count)
        self.sockets.set_function(registry.hub.total)
        registry.writer.observer = self
        ownership = registry.ownership
        shared = ownership if isinstance(ownership, Shared) else None
        stored = shared.stored if shared is not None else None
        self.counts.counts = [
            # Monotone, unlike the gauge: a table loaded by its clock and let go again
            # between two scrapes still counts (tests/web/test_idle_tables.py waits on it).
            (
                "hollywood_gin_tables_woken",
                "Tables loaded back from the store by their clock (a deadline), nobody asking",
                lambda: registry.presence.woken,
            ),
            (
                "hollywood_gin_deadline_sweep_tables",
                "Tables nobody held claimed by the deadline sweep for their look",
                lambda: shared.swept if shared is not None else 0,
            ),
            (
                "hollywood_gin_deadline_sweep_failures",
                "Deadline sweep rounds failed (the database away)",
                lambda: shared.sweep_failures.count if shared is not None else 0,
            ),
            (
                "hollywood_gin_look_write_failures",
                "Writes of a table's next look failed (each tried again)",
                lambda: stored.failures.count if stored is not None else 0,
            ),
        ]

    def action(self, kind: str, seconds: float) -> None:
        self.actions.labels(kind).inc()
        self.action_seconds.observe(seconds)

    def commit(self, seconds: float) -> None:
        self.commit_seconds.observe(seconds)

    def seats_written(self) -> None:
        self.seat_writes.inc()

    def think(self, strength: str, seconds: float) -> None:
        self.think_seconds.labels(strength).observe(seconds)

    def error(self, code: str) -> None:
        self.errors.labels(code if code in ERROR_CODES else "other").inc()


def of(app: FastAPI) -> Metrics | None:
    metrics: Metrics | None = getattr(app.state, "metrics", None)
    return metrics


def install(app: FastAPI) -> None:
    """`GET /metrics`, and the app's `Metrics` (the lifespan attaches the registry)."""
    app.state.metrics = Metrics(str(app.state.version), app.state.commit)

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        body = generate_latest(app.state.metrics.collectors)
        return Response(body, media_type=CONTENT_TYPE_LATEST)
