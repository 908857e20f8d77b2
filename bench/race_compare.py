"""The simulator's race outcomes over seeds, against the hardware's (docs/races.md).

Default: the launches measured on an H100 in 2026-11-23. Runs each on the vector engine (cost model
on, level threads) for seeds 0..N-1 and prints the final values next to the hardware's. The tutorial's
launch starts from its array [0, 1], as the hardware's 10 runs did; "zeros" is the same launch from
[0, 0], as the 60 runs of gpu_race_timing.py.
Last line: `compare lesson=<..> wave=<..> histogram=<..> tutorial=<..>`.

`--shapes`: the 35 launch shapes of bench/race_shapes.py against their plain runs on an NVIDIA H200
(bench/race_shapes_h200.json, 16 runs each, 2026-11-26), the fit half and the validation half apart.
A shape meets the rule when the seeds' median lies inside the hardware's [min, max], every seed inside
[0.75 x min, 1.25 x max], and, where the hardware gave two or more distinct outcomes, so do the seeds.
Last line: `shapes fit=<met>/<n> validation=<met>/<n>`.
Usage: python bench/race_compare.py [seeds] [--shapes [fit|validation]] (`--smoke`: one seed, tiny launches)
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import race_shapes

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
    print(
        "compare "
        + " ".join(f"{k}={spread(v)}" for k, v in outcomes.items() if k not in ("tutorial", "zeros"))
        + f" tutorial={tutorial}"
    )


# ---- the launch shapes against an H200 ------------------------------------------------------------
MEASURED = Path(__file__).with_name("race_shapes_h200.json")


def simulate(shape: race_shapes.Shape, seeds: int) -> list[float]:
    """The shape's outcome for seeds 0..seeds-1 on the vector engine (what `gpuviz run` would show)."""
    outcomes = []
    for seed in range(seeds):
        arrays = shape.inputs()
        gpuviz.run(race_shapes.SOURCES[shape.kernel], shape.blocks, shape.threads, *arrays.values(),
                   level="threads", seed=seed)  # fmt: skip
        outcomes.append(shape.outcome(arrays))
    return outcomes


def shapes_table(seeds: int, halves: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Prints one markdown table per half; returns (met, shapes) per half."""
    measured = {row["name"]: row for row in json.loads(MEASURED.read_text())["shapes"]}
    fit, validation = race_shapes.split(race_shapes.SHAPES)
    if SMOKE:
        fit, validation = [race_shapes.Shape("counter", 2, 64)], [race_shapes.Shape("histogram", 2, 64, 128, 16)]
    scores = {}
    for half, shapes in (("fit", fit), ("validation", validation)):
        if half not in halves:
            continue
        print(f"\n{half} half ({len(shapes)} shapes, {seeds} seeds)\n")
        print("| launch | waves | H200, 16 plain runs | simulator | rule |\n|---|---|---|---|---|")
        met = 0
        for shape in shapes:
            simulated = simulate(shape, seeds)
            if shape.name not in measured:  # the smoke run's tiny shapes
                print(f"| {shape.name} | {shape.waves:.2g} | not measured | {race_shapes.describe(simulated)} | - |")
                continue
            hardware = measured[shape.name]["outcomes"]
            ok = race_shapes.verdict(hardware, simulated)
            met += ok == "yes"
            shown = f"{race_shapes.describe(hardware)} | {race_shapes.describe(simulated)}"
            row = f"| {shape.name} | {shape.waves:.2g} | {shown} | {ok} |"
            print(row, flush=True)
        scores[half] = (met, len(shapes))
    return scores


if __name__ == "__main__":
    words = [a for a in sys.argv[1:] if a != "--smoke"]
    seeds = [int(a) for a in words if a.isdigit()]
    if "--shapes" in words or SMOKE:
        chosen = tuple(w for w in words if w in ("fit", "validation")) or ("fit", "validation")
        scores = shapes_table(seeds[0] if seeds else 1 if SMOKE else 16, chosen)
        print("shapes " + " ".join(f"{half}={met}/{n}" for half, (met, n) in scores.items()))
    if "--shapes" not in words:
        main(seeds[0] if seeds else 1 if SMOKE else 10)
