"""Each garbage collection of every Python process started with this folder first on
`PYTHONPATH` and `GCLOG` set, one line each in `$GCLOG.<pid>`: the time, the
generation, the objects it walked, its milliseconds, what it collected, the
generations' counts after it, the frozen objects (as of the last minute) and the load
average.

    GCLOG=/tmp/gc/run PYTHONPATH=benchmarks/gclog:$PWD \\
        python -m benchmarks.bench_capacity --systems ours --steps 4000,8000 --hold 45

The server is the process whose lines show a frozen heap (`serve.tune_gc`). The
objects walked are the figure to compare on a loaded machine (a collection's time
is about proportional to them); counting them (a list of each generation collected,
`gc.get_objects`) stalls the process a little more, outside the milliseconds shown;
`GCLOG_WALK=0` leaves the count out. A diagnostic for benchmarks, never imported by the server.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

if os.environ.get("GCLOG"):
    os.makedirs(os.path.dirname(os.path.abspath(os.environ["GCLOG"])), exist_ok=True)
    _log = open(f"{os.environ['GCLOG']}.{os.getpid()}", "a", buffering=1)  # noqa: SIM115
    _walk = os.environ.get("GCLOG_WALK", "1") != "0"
    _started = [0.0, -1.0]
    # `gc.get_freeze_count` walks the whole permanent generation (a stall of tens of ms
    # at a million objects, outside the milliseconds shown): counted once a minute at
    # most, not at each collection (at ten a second it took 68 % of the server's CPU).
    _frozen = [0, 0.0]

    def _frozen_count() -> int:
        now = time.monotonic()
        if now - _frozen[1] >= 60.0:
            _frozen[:] = [gc.get_freeze_count(), now]
        return int(_frozen[0])

    def _each(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            generation = info["generation"]
            if _walk:
                _started[1] = sum(len(gc.get_objects(g)) for g in range(generation + 1))
            _started[0] = time.perf_counter()
            return
        ms = (time.perf_counter() - _started[0]) * 1000
        _log.write(
            f"{time.time():.3f} gen={info['generation']} walked={_started[1]:.0f} "
            f"ms={ms:.1f} collected={info['collected']} counts={gc.get_count()} "
            f"frozen={_frozen_count()} load={os.getloadavg()[0]:.2f}\n"
        )

    # First in the list: it sees a collection before `serve.freeze_survivors` does.
    gc.callbacks.insert(0, _each)
