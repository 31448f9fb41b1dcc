"""Group commit without a database: what gathers into one commit, and who hears what."""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Iterator

import pytest

from hollywood_gin.tables.group_commit import LONE, Answer, GroupCommit, Outcomes, Worker
from tests.loopclock import loop_clock


class Recorder:
    """A commit that records its batches, held open until `open` is called.

    Both ways to hand a batch over: `commit` (an awaitable, on the loop) and `submit`
    (a `Worker` thread runs it and answers on the loop, as the SQLite store does)."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.gate = asyncio.Event()
        self.thread_gate = threading.Event()
        self.refuse: set[str] = set()
        self.broken = False
        self.worker = Worker("test-commits")

    def open(self) -> None:
        self.gate.set()
        self.thread_gate.set()

    def outcomes(self, jobs: list[str]) -> Outcomes:
        if self.broken:
            raise OSError("disk full")
        return [ValueError(j) if j in self.refuse else None for j in jobs]

    async def commit(self, jobs: list[str]) -> Outcomes:
        self.batches.append(list(jobs))
        await self.gate.wait()
        return self.outcomes(jobs)

    def submit(self, jobs: list[str], answer: Answer, loop: asyncio.AbstractEventLoop) -> None:
        self.batches.append(list(jobs))

        def blocking() -> Outcomes:
            self.thread_gate.wait()
            return self.outcomes(jobs)

        self.worker.submit(blocking, answer, loop)

    def group(self, way: str, gather: float = 0.0) -> GroupCommit[str]:
        if way == "commit":
            return GroupCommit(self.commit, gather=gather)
        return GroupCommit(submit=self.submit, gather=gather)


@pytest.fixture(params=["commit", "submit"])
def way(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def rec() -> Iterator[Recorder]:
    recorder = Recorder()
    yield recorder
    recorder.thread_gate.set()
    recorder.worker.shutdown()


@pytest.mark.anyio
async def test_writes_given_during_a_commit_go_together_into_the_next(
    rec: Recorder, way: str
) -> None:
    group = rec.group(way)
    first = asyncio.ensure_future(group.write("a"))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert rec.batches == [["a"]] and not group.idle
    rest = [asyncio.ensure_future(group.write(j)) for j in ("b", "c", "d")]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    rec.open()
    await asyncio.gather(first, *rest)
    assert rec.batches == [["a"], ["b", "c", "d"]]
    assert group.idle


@pytest.mark.anyio
async def test_with_gather_writes_of_an_idle_moment_wait_to_share_one_commit(
    rec: Recorder, way: str
) -> None:
    """At human pace the moves come one at a time, each a commit of its own; with
    `gather` the writes given within it of the first share its commit, and none of
    them is answered before that commit is done (stored before shown)."""
    rec.open()
    group = rec.group(way, gather=0.05)
    writes = []
    with loop_clock() as clock:
        for job in ("a", "b", "c"):
            writes.append(asyncio.ensure_future(group.write(job)))
            for _ in range(3):  # several turns of the loop apart: no batch yet
                await asyncio.sleep(0)
            await clock.advance(0.01)  # and some of the gather
        assert rec.batches == [] and not any(w.done() for w in writes)
        await clock.advance(0.02)  # the oldest has waited its 0.05
        await asyncio.gather(*writes)
    assert rec.batches == [["a", "b", "c"]]
    assert group.idle


@pytest.mark.anyio
async def test_with_gather_a_write_given_during_a_commit_still_waits_its_time(
    rec: Recorder, way: str
) -> None:
    """At human pace the one or two moves that come during a commit's round trip
    would otherwise go next at once, a batch of one or two each time: with `gather`
    they too wait until the oldest of them has waited that long."""
    group = rec.group(way, gather=1.0)
    with loop_clock() as clock:
        first = asyncio.ensure_future(group.write("a"))
        await clock.advance(0.99)
        assert rec.batches == []
        await clock.advance(0.01)  # the first batch, after its second of gathering
        assert rec.batches == [["a"]]
        second = asyncio.ensure_future(group.write("b"))
        rec.open()
        await first
        for _ in range(5):
            await asyncio.sleep(0)
        # However long the machine took since `b` came, it waits its own second.
        assert rec.batches == [["a"]] and not second.done()
        await clock.advance(1.0)
        await second
    assert rec.batches == [["a"], ["b"]]


async def _lone_batches(group: GroupCommit[str], rec: Recorder) -> None:
    """LONE writes one at a time, each after the last one's commit: nobody joins."""
    for i in range(LONE):
        await group.write(f"lone{i}")
    assert rec.batches[-LONE:] == [[f"lone{i}"] for i in range(LONE)]


@pytest.mark.anyio
async def test_with_gather_writes_that_nobody_joins_stop_waiting(rec: Recorder, way: str) -> None:
    """One client playing alone (`bench_instructions --serial`): each write comes after
    the last one's commit, so the gathering only adds a timer and its wait. After LONE
    gathered batches of one, a write at an idle moment is handed over at once."""
    rec.open()
    group = rec.group(way, gather=0.2)
    await _lone_batches(group, rec)
    alone = asyncio.ensure_future(group.write("a"))
    for _ in range(5):  # a few turns of the loop, far less than the gather
        await asyncio.sleep(0)
    assert rec.batches[-1] == ["a"]  # handed over (its answer comes from the thread)
    await alone


@pytest.mark.anyio
async def test_with_gather_a_write_during_a_commit_starts_the_gathering_again(
    rec: Recorder, way: str
) -> None:
    """Once it stopped (nobody joined), a write that comes while a commit is under way
    (another writer) waits its gather again, and what comes meanwhile joins it."""
    rec.open()
    group = rec.group(way, gather=0.05)
    await _lone_batches(group, rec)
    group.gather = 1.0
    rec.gate.clear()
    rec.thread_gate.clear()
    with loop_clock() as clock:
        first = asyncio.ensure_future(group.write("a"))  # at once, held open
        while rec.batches[-1] != ["a"]:
            await asyncio.sleep(0)
        second = asyncio.ensure_future(group.write("b"))  # during a's commit
        rec.open()
        await first
        for _ in range(5):
            await asyncio.sleep(0)
        assert rec.batches[-1] == ["a"] and not second.done()
        third = asyncio.ensure_future(group.write("c"))
        await clock.advance(1.0)
        await asyncio.gather(second, third)
    assert rec.batches[-2:] == [["a"], ["b", "c"]]


@pytest.mark.anyio
async def test_each_write_hears_its_own_outcome_and_a_failed_commit_fails_them_all(
    rec: Recorder, way: str
) -> None:
    rec.open()
    rec.refuse = {"b"}
    group = rec.group(way)
    a, b, c = await asyncio.gather(
        group.write("a"), group.write("b"), group.write("c"), return_exceptions=True
    )
    assert a is None and c is None
    assert isinstance(b, ValueError) and str(b) == "b"
    rec.broken = True
    results = await asyncio.gather(group.write("x"), group.write("y"), return_exceptions=True)
    assert [type(r) for r in results] == [OSError, OSError]
    rec.broken = False
    await group.write("z")  # works again
    assert rec.batches[-1] == ["z"]


@pytest.mark.anyio
async def test_a_cancelled_writer_leaves_the_others_answered_and_drain_waits(
    rec: Recorder, way: str
) -> None:
    group = rec.group(way)
    gone = asyncio.ensure_future(group.write("a"))
    kept = asyncio.ensure_future(group.write("b"))
    await asyncio.sleep(0)
    gone.cancel()
    drained = asyncio.create_task(group.drain())
    await asyncio.sleep(0.02)
    assert not drained.done()
    rec.open()
    await kept
    await drained
    assert gone.cancelled() and rec.batches == [["a", "b"]]


@pytest.mark.anyio
async def test_the_worker_runs_calls_in_order_on_one_thread_and_hands_back_errors() -> None:
    worker = Worker("test-worker")
    try:
        seen: list[tuple[int, str]] = []

        def call(i: int) -> int:
            seen.append((i, threading.current_thread().name))
            return i * i

        squares = await asyncio.gather(*(worker.run(functools.partial(call, i)) for i in range(5)))
        assert squares == [0, 1, 4, 9, 16]
        assert seen == [(i, "test-worker") for i in range(5)]

        def fail() -> None:
            raise KeyError("x")

        with pytest.raises(KeyError):
            await worker.run(fail)
        assert await worker.run(lambda: "still serving") == "still serving"
    finally:
        worker.shutdown()
