"""`python -m hollywood_gin` freezes the start-up heap and collects less often (performance.md)."""

from __future__ import annotations

import gc

from hollywood_gin.serve import GC_THRESHOLDS, tune_gc


def test_tune_gc_freezes_and_sets_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
        # Fewer, larger young collections: far above CPython's 700.
        assert GC_THRESHOLDS[0] >= 10_000
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
