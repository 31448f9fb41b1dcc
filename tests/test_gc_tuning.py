"""`python -m hollywood_gin` freezes the start-up heap and collects less often (performance.md)."""

from __future__ import annotations

import gc

from hollywood_gin.serve import GC_THRESHOLDS, freeze_survivors, tune_gc


def untune(threshold: tuple[int, int, int]) -> None:
    while freeze_survivors in gc.callbacks:
        gc.callbacks.remove(freeze_survivors)
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_tune_gc_freezes_and_sets_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
        # Fewer, larger young collections: far above CPython's 700.
        assert GC_THRESHOLDS[0] >= 10_000
    finally:
        untune(before)


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_what_a_collection_keeps_is_frozen_and_walked_no_more() -> None:
    """Survivors go to the permanent generation, so no later collection (of any
    generation) walks them: the middle and oldest ones stay empty; garbage made
    before a collection is still collected by it."""
    before = gc.get_threshold()
    try:
        tune_gc()
        kept = [Node() for _ in range(1000)]
        dropped = [Node() for _ in range(1000)]
        for node in dropped:
            node.other = node  # a cycle each: garbage only the collector finds
        del dropped, node
        frozen = gc.get_freeze_count()
        assert gc.collect(0) >= 1000
        assert gc.get_freeze_count() >= frozen + len(kept)
        assert not any(type(o) is Node for o in gc.get_objects())  # frozen: not walked
        assert gc.get_objects(1) == [] and gc.get_objects(2) == []
        gc.unfreeze()
        assert sum(type(o) is Node for o in gc.get_objects()) == len(kept)
    finally:
        untune(before)
