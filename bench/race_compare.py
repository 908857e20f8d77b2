"""The simulator's race outcomes over seeds, for the launches measured on an H100 (docs/races.md).

Runs each launch on the vector engine (cost model on, level threads) for seeds 0..N-1 and prints
the final values next to the hardware's. The tutorial's launch starts from its array [0, 1], as the
hardware's 10 runs did; "zeros" is the same launch from [0, 0], as the 60 runs of gpu_race_timing.py.
Last line: `compare lesson=<..> wave=<..> histogram=<..> tutorial=<..>`.
Usage: python bench/race_compare.py [seeds] (`--smoke`: one seed, [2, 64] launches)
"""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np

import gpuviz

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv

RACE = """
from numba import cuda

@cuda.jit
def race(a):
    for i in range(a.size):
        a[i] += 0.5
"""

HISTOGRAM = """
from numba import cuda

@cuda.jit
def histogram_racy(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1
"""

HARDWARE = {
    "lesson": "a[0] = 0.5 in 8 of 8",
    "wave": "a[0] = 1.0 in 8 of 8",
    "tutorial": "a[0] 3.0-5.0, a[1] 5.5-9.5 (10 runs)",
    "zeros": "a[0] 2.5-5.5, a[1] 3.5-8.0 (60 runs)",
    "histogram": "16 counted in 7 of 8",
}


def race(blocks: int, seed: int, start=(0.0, 0.0)) -> tuple[float, float]:
    a = np.array(start, np.float32)
    blocks, threads = (2, 64) if SMOKE else (blocks, 1024)
    gpuviz.run(RACE, blocks, threads, a, level="threads", seed=seed)
    return float(a[0]), float(a[1])


def histogram(seed: int) -> int:
    data = np.random.default_rng(0).integers(0, 1000, 4096).astype(np.int32)
    bins = np.zeros(16, np.int32)
    gpuviz.run(HISTOGRAM, 16, 256, data, bins, level="threads", seed=seed)
    return int(bins.sum())


def spread(values) -> str:
    return ", ".join(f"{v} x{n}" for v, n in sorted(Counter(values).items()))


def main(seeds: int) -> None:
    outcomes = {
        "lesson": [race(64, s)[0] for s in range(seeds)],
        "wave": [race(264, s)[0] for s in range(seeds)],
        "tutorial": [race(1024, s, (0.0, 1.0)) for s in range(seeds)],  # the tutorial's array, as measured
        "zeros": [race(1024, s) for s in range(seeds)],  # the same launch on zeros, as bench/gpu_race_timing.py
        "histogram": [histogram(s) for s in range(seeds)],
    }
    for name, values in outcomes.items():
        if name in ("tutorial", "zeros"):
            shown = f"a[0] {spread(v[0] for v in values)}; a[1] {spread(v[1] for v in values)}"
        else:
            shown = spread(values)
        print(f"{name:9s} sim ({seeds} seeds): {shown:60s} hardware: {HARDWARE[name]}")
    tutorial = " ".join(f"[{a},{b}]" for a, b in outcomes["tutorial"])
    print(f"tutorial runs: {tutorial}")
    print("compare " + " ".join(f"{k}={spread(v)}" for k, v in outcomes.items() if k not in ("tutorial", "zeros"))
          + f" tutorial={tutorial}")


if __name__ == "__main__":
    seeds = [int(a) for a in sys.argv[1:] if a != "--smoke"]
    main(seeds[0] if seeds else 1 if SMOKE else 10)
