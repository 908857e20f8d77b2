"""The fast path's log turned into the trace's columns (fast/log_rows.py) on one thread and on every core, in
one run: the passes cut the kept blocks into parts where a group of blocks ends, each part's cells and
rows its own.

The log is the one a launch left (2^20 threads at level `accesses`: vector add, whose threads make three
accesses each, and the shared-memory tree reduction, whose threads make 2 to 28), captured once and
copied for every timing; best of BEST_OF, the two alternating.
Last line: `log_passes <kernel>=<one thread s>/<every core s>/<ratio> ... lanes=<n>`.
Run: `python bench/log_passes.py` (`--smoke`: 2^12 threads).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import fast_kernels as K  # noqa: E402

SMOKE = "--smoke" in sys.argv
SIDE = 64 if SMOKE else 1024  # SIDE x SIDE threads
BEST_OF = 1 if SMOKE else 7


def captured_log(name: str) -> tuple[list, tuple, dict]:
    """The log, and log_rows' other arguments, of one launch on the fast path at level accesses."""
    from gpuviz.backends.sim.fast import engine
    from gpuviz.core.options import RunOptions
    from gpuviz.run.api import python_function
    from gpuviz.run.session import Session

    seen = []
    original = engine.log_rows

    def keep(log, *args, **named):
        seen.append(([part.copy() if isinstance(part, np.ndarray) else part for part in log], args, named))
        return original(log, *args, **named)

    engine.log_rows = keep
    try:
        session = Session(RunOptions(backend="sim", engine="fast", level="accesses"), out_dir=None)
        threads = SIDE * SIDE
        trace = session.launch(python_function(getattr(K, name)), threads // K.THREADS, K.THREADS,
                               K.inputs(name, SIDE, SIDE))  # fmt: skip
    finally:
        engine.log_rows = original
    if trace.meta["engine"] != "fast" or not seen:
        raise SystemExit(f"{name} did not run on the fast path: {trace.meta.get('engine_note')}")
    return seen[-1]


def timed(log: list, args: tuple, named: dict, lanes: int) -> float:
    from gpuviz.backends.sim.fast.log_rows import log_rows

    copy = [part.copy() if isinstance(part, np.ndarray) else part for part in log]
    started = time.perf_counter()
    log_rows(copy, *args, **{**named, "lanes": lanes})
    return time.perf_counter() - started


def main() -> None:
    from gpuviz.backends.sim.fast.engine import _lanes

    lanes = _lanes()
    found = []
    for name in ("vecadd", "tree_reduction"):
        log, args, named = captured_log(name)
        timed(log, args, named, 1)  # compiled or loaded before any timing
        one, every = [], []
        for _ in range(BEST_OF):
            one.append(timed(log, args, named, 1))
            every.append(timed(log, args, named, lanes))
        rows = int(log[6].sum())  # every thread's accesses, each in its slots
        print(f"{name:15s} {rows:>10,} rows  one thread {min(one):.3f} s  {lanes} lanes {min(every):.3f} s  "
              f"x{min(one) / min(every):.2f}", flush=True)  # fmt: skip
        found.append(f"{name}={min(one):.3f}/{min(every):.3f}/{min(one) / min(every):.2f}")
    print(f"log_passes {' '.join(found)} lanes={lanes}")


if __name__ == "__main__":
    main()
