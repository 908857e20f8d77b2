"""Race analysis speed: access events analysed per second by find_races.

The trace is built with NumPy to look like a big launch: 2^20 threads in blocks of 256, each
reading two inputs and writing its own output element (race-free), plus a histogram of 256 bins
updated without atomics (racy), over two barrier epochs: 8 Mi events. For scale, the run also
times one np.argsort of the events' element indices (a floor for any sort-based analysis).
Last line: `events_per_s=<n>`.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from gpuviz.core.analysis.races import find_races
from gpuviz.core.trace.columns import ACCESS_COLUMNS, READ, WRITE, thread_layout
from gpuviz.core.trace.model import Trace

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
THREADS, BLOCK = 1 << (12 if SMOKE else 20), 256


def build_trace() -> Trace:
    rng = np.random.default_rng(0)
    t = np.arange(THREADS, dtype=np.int64)
    bins = rng.integers(0, 256, THREADS)
    pattern = [  # (array, index, kind, line, epoch)
        (0, t, READ, 5, 0), (1, t, READ, 5, 0), (2, t, WRITE, 6, 0),
        (3, bins, READ, 8, 1), (3, bins, WRITE, 8, 1), (2, t, READ, 9, 1), (0, t, READ, 9, 1), (1, t, READ, 9, 1),
    ]  # fmt: skip
    columns = {name: [] for name in ACCESS_COLUMNS}
    for array, index, kind, line, epoch in pattern:
        for name, value in zip(["thread", "array", "index", "kind", "line", "epoch", "value"],
                               [t, array, index, kind, line, epoch, 1.0]):  # fmt: skip
            columns[name].append(np.broadcast_to(value, t.shape))
    accesses = {name: np.concatenate(v).astype(ACCESS_COLUMNS[name]) for name, v in columns.items()}
    block_idx, thread_idx, warp, lane = thread_layout((THREADS // BLOCK, 1, 1), (BLOCK, 1, 1))
    zeros = np.zeros(THREADS, np.int64)
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": np.zeros(THREADS, np.int32), "t_start": zeros, "t_end": zeros}  # fmt: skip
    arrays = [{"name": n, "space": "global", "dtype": "float32", "shape": [THREADS]} for n in "abc"]
    arrays.append({"name": "hist", "space": "global", "dtype": "int64", "shape": [256]})
    meta = {"kernel": "bench", "grid": [THREADS // BLOCK, 1, 1], "block": [BLOCK, 1, 1], "arrays": arrays}
    return Trace(meta=meta, threads=threads, accesses=accesses)


def main() -> None:
    trace = build_trace()
    events = len(trace.accesses["thread"])
    seconds, sort_seconds = [], []
    for _ in range(3):
        started = time.perf_counter()
        report = find_races(trace)
        seconds.append(time.perf_counter() - started)
        started = time.perf_counter()
        np.argsort(trace.accesses["index"])
        sort_seconds.append(time.perf_counter() - started)
    assert report.arrays() == ["hist"] and report.locations == 256, report.summary()
    best, floor = statistics.median(seconds), statistics.median(sort_seconds)
    print(f"{events:,} events: find_races {best:.3f} s (median of 3); one argsort {floor:.3f} s; "
          f"ratio {best / floor:.1f}; {report.summary()}")  # fmt: skip
    print(f"events_per_s={events / best:.0f}")


if __name__ == "__main__":
    main()
