"""Memory analysis speed: coalescing, bank conflicts, occupancy and divergence of a 1M-thread trace.

The trace is built with NumPy to look like a big launch on the simulator: 2^20 threads in blocks
of 256, run in waves of 132 SMs x 8 blocks, each wave's accesses in lockstep order (one access
site after another, every thread of the wave). Per thread: two coalesced float32 reads and a write,
a stride-32 read, a row-wise shared store and a column-wise shared read (32-way conflicts), and one
read only the even lanes make (divergence): 7.5 Mi events. For scale, the run also times
find_races on the same trace and one np.argsort of the events' element indices.
Last line: `events_per_s=<n>`.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from gpuviz.core.analysis.memory import memory_report
from gpuviz.core.analysis.races import find_races
from gpuviz.core.trace.columns import ACCESS_COLUMNS, READ, WRITE, thread_layout
from gpuviz.core.trace.model import Trace

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
THREADS, BLOCK, WAVE = 1 << (12 if SMOKE else 20), 256, 132 * 8 * 256


def site_rows(t: np.ndarray) -> list[tuple]:
    """(array, index, kind, line, epoch, which threads) of every access site, in program order."""
    local = t % BLOCK
    column = (local % 32) * 32 + local // 32  # tile[lane][warp]: every lane of a warp in one bank
    even = t[t % 2 == 0]
    return [
        (0, t, READ, 5, 0, t), (1, t, READ, 5, 0, t), (0, (t * 32) % THREADS, READ, 6, 0, t),
        (4, local, WRITE, 7, 0, t), (4, column, READ, 9, 1, t), (1, even, READ, 10, 1, even), (2, t, WRITE, 11, 1, t),
    ]  # fmt: skip


def build_trace() -> Trace:
    parts = {name: [] for name in ACCESS_COLUMNS}
    for first in range(0, THREADS, WAVE):
        t = np.arange(first, min(first + WAVE, THREADS), dtype=np.int64)
        for array, index, kind, line, epoch, who in site_rows(t):
            for name, value in zip(["thread", "array", "index", "kind", "line", "epoch", "value"],
                                   [who, array, index, kind, line, epoch, 1.0]):  # fmt: skip
                parts[name].append(np.broadcast_to(value, who.shape))
    accesses = {name: np.concatenate(v).astype(ACCESS_COLUMNS[name]) for name, v in parts.items()}
    blocks = THREADS // BLOCK
    block_idx, thread_idx, warp, lane = thread_layout((blocks, 1, 1), (BLOCK, 1, 1))
    wave = np.arange(blocks) // (132 * 8)
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": np.repeat(np.arange(blocks) % 132, BLOCK).astype(np.int32),
               "t_start": np.repeat(wave * 100, BLOCK), "t_end": np.repeat(wave * 100 + 90, BLOCK)}  # fmt: skip
    arrays = [{"name": n, "space": "global", "dtype": "float32", "shape": [THREADS]} for n in "abc"]
    arrays.append({"name": "unused", "space": "global", "dtype": "int64", "shape": [1]})
    arrays.append({"name": "tile", "space": "shared", "dtype": "float32", "shape": [32, 32]})
    facts = {"max_threads_per_sm": 2048, "max_blocks_per_sm": 32, "max_shared_memory_per_sm": 228 * 1024}
    meta = {"kernel": "bench", "grid": [blocks, 1, 1], "block": [BLOCK, 1, 1], "arrays": arrays,
            "device_facts": facts}  # fmt: skip
    return Trace(meta=meta, threads=threads, accesses=accesses)


def timed(work) -> tuple[float, object]:
    seconds, result = [], None
    for _ in range(3):
        started = time.perf_counter()
        result = work()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), result


def main() -> None:
    trace = build_trace()
    events = len(trace.accesses["thread"])
    memory, report = timed(lambda: memory_report(trace))
    races, _ = timed(lambda: find_races(trace))
    floor, _ = timed(lambda: np.argsort(trace.accesses["index"]))
    worst = {r["line"]: r for r in report["lines"]}
    assert worst[6]["sectors_per_request"] == 32 and worst[9]["bank_conflict_degree"]["max"] == 32, worst
    assert report["divergence"]["diverged_warps"] == THREADS // 32
    print(f"{events:,} events, {THREADS:,} threads: memory_report {memory:.3f} s (median of 3); "
          f"find_races {races:.3f} s; one argsort {floor:.3f} s; ratio to argsort {memory / floor:.1f}, "
          f"to find_races {memory / races:.2f}")  # fmt: skip
    print(f"events_per_s={events / memory:.0f}")


if __name__ == "__main__":
    main()
