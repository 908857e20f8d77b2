"""A per-warp event model of the race calibration's 35 launch shapes with a queue per 32-byte sector (docs/races.md).

Not the simulator: a check, outside the engine, of whether the mechanisms the H100 and H200 timings point
at give the hardware's outcomes across launch shapes before anyone builds them into the vector engine.
Each warp of bench/race_shapes.py's kernels is a list of read-modify-writes of sectors (the loop: a[0],
then a[1] in the same sector; the counter: c[0]; a histogram: per value the warp's distinct bins, grouped
by sector, after a coalesced load of its 32 values; grid-stride: one such op per iteration). Mechanisms:
- blocks: the first wave goes out at the rate the H200's probe measured, later ones one per GAP cycles to
  the slot that frees first, a retirement time after their last warp's last store; each starts 0-LATE
  cycles late (seeded: the only source of variation, no noise is added to an outcome);
- each SM has one memory pipeline: a warp's instruction takes a turn of PIPE cycles per sector it touches;
- each SM's L1 keeps a copy of a sector it fetched (hits cost L1_HIT) and takes the SM's own stores into it;
  other SMs' stores never reach it. A load that finds the copy, or a miss in flight, shares its data;
- other loads and every store queue at the sector in the L2, first come first served. A load reads memory
  when it is served, a store writes it when it is served;
- a load waits for its warp's own last store to the sector to be acknowledged, and a load that left its SM
  while any store of that SM to the sector was unacknowledged is held in the L1 until that acknowledgement,
  then takes RAW_LOAD cycles of the sector's time (whatever queues behind it waits): slow for a load behind
  its SM's store, fast (STORE) for stores nobody waits on. `sm_scope`, `l1_hit` and `l1_update` switch the
  SM-wide hold and the L1 copy back to the mechanisms as first described (`--fit` shows both).
Prints, per half of race_shapes.split and 16 seeds, the table of docs/races.md; last line
`sector_model fit=<met>/19 validation=<met>/16`.
Usage: python bench/race_sector_model.py [seeds] [fit|validation] [--fit] [--smoke]
`--fit`: scores the fit half alone for each structure and constant tried (how those below were chosen).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import race_sector_events as events
import race_shapes
from race_shapes import Shape

MEASURED = json.loads(Path(__file__).with_name("race_shapes_h200.json").read_text())
SMOKE = "--smoke" in sys.argv
CYCLES_PER_NS = 1.98  # the H200's SM clock at its 1,980 MHz boost, as docs/races.md converts the probe's ns
LOAD = 308  # global load, cycles: bench/gpu_latency.py on an H100 80GB HBM3, 2026-11-23 (docs/simulator.md)
EMPTY_LAUNCH_US = 105  # CUDA-event time of the fit half's counter [264, 1024], whose blocks do next to nothing


def _by_name(name: str) -> dict:
    return next(row for row in MEASURED["shapes"] if row["name"] == name)


def _busy_cycles(shape: Shape) -> float:
    """The fit shape's launch by CUDA events (median of 16), less an empty launch, in SM cycles."""
    return (statistics.median(_by_name(shape.name)["seconds"]) * 1e6 - EMPTY_LAUNCH_US) * 1e3 * CYCLES_PER_NS


# ---- what a launch does, per warp ---------------------------------------------------------------------
def program(shape: Shape) -> dict:
    """The CSR arrays race_sector_events.run takes: ops per warp, sectors per op, bins per sector."""
    wpb = -(-shape.threads // 32)
    warps = shape.blocks * wpb
    if shape.kernel in ("loop_add", "counter"):
        bins = np.tile(np.arange(2 if shape.kernel == "loop_add" else 1, dtype=np.int32), warps)
        ops = len(bins) // warps
        raw = np.tile(np.arange(ops) > 0, warps)  # the loop's a[1] is in the sector the warp just stored to
        sizes = np.ones(len(bins), np.int64)
        return _csr(warps, np.full(warps, ops), sizes, bins // 8, raw, np.ones(len(bins), np.int64), bins,
                    data=False, inc=0.5 if shape.kernel == "loop_add" else 1.0, n_bins=ops)  # fmt: skip
    lanes = shape.inputs()["data"] % shape.bins
    rows, per_warp = _rows(shape, lanes, warps)
    return _histogram_ops(rows, per_warp, warps, shape.bins)


def _rows(shape: Shape, lanes: np.ndarray, warps: int) -> tuple[np.ndarray, np.ndarray]:
    """The bins each warp's lanes hit, one row of 32 per warp and iteration (-1 for lanes past the data)."""
    grid = shape.blocks * shape.threads
    steps = 1 if shape.kernel == "histogram" else -(-lanes.size // grid)
    padded = np.full(steps * grid, -1, np.int32)
    padded[: min(lanes.size, steps * grid)] = lanes[: steps * grid]
    rows = padded.reshape(steps, warps, 32).transpose(1, 0, 2).reshape(-1, 32)
    kept = (rows >= 0).any(axis=1)
    per_warp = kept.reshape(warps, steps).sum(axis=1)
    return np.sort(rows[kept], axis=1), per_warp


def _histogram_ops(rows: np.ndarray, per_warp: np.ndarray, warps: int, n_bins: int) -> dict:
    """Distinct bins per row (same-bin lanes of a warp are one conflict), grouped by sector."""
    new_bin = (rows >= 0) & np.concatenate([np.ones((len(rows), 1), bool), rows[:, 1:] != rows[:, :-1]], axis=1)
    sectors = rows // 8
    new_sector = new_bin & np.concatenate([np.ones((len(rows), 1), bool), sectors[:, 1:] != sectors[:, :-1]], axis=1)
    row_of_bin = np.nonzero(new_bin)[0]
    bins = rows[new_bin]
    part_starts = new_sector[new_bin]  # which distinct bins open a part (a new sector of their row)
    part_row = row_of_bin[part_starts]
    part_sector = bins[part_starts] // 8
    bins_per_part = np.diff(np.append(np.nonzero(part_starts)[0], len(bins)))
    parts_per_row = np.bincount(part_row, minlength=len(rows))
    # a part is a load behind the warp's own store when the warp's previous row stored to its sector
    n_sec = n_bins // 8 + 1
    keys = part_row.astype(np.int64) * n_sec + part_sector
    asked = keys - n_sec
    found = np.searchsorted(keys, asked)
    found = np.minimum(found, len(keys) - 1)
    first_row = np.concatenate([[0], np.cumsum(per_warp)[:-1]])
    is_first = np.zeros(len(rows), bool)
    is_first[first_row[per_warp > 0]] = True
    raw = (keys[found] == asked) & ~is_first[part_row]
    return _csr(warps, per_warp, parts_per_row, part_sector, raw, bins_per_part, bins, data=True, inc=1.0,
                n_bins=n_bins)  # fmt: skip


def _csr(warps, ops_per_warp, parts_per_op, part_sector, raw, bins_per_part, bins, data, inc, n_bins) -> dict:
    def offsets(counts):
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

    return {
        "op_first": offsets(ops_per_warp),
        "op_part": offsets(parts_per_op),
        "op_data": np.full(len(parts_per_op), data),
        "part_sector": np.asarray(part_sector, np.int64),
        "part_raw": np.asarray(raw, np.bool_),
        "part_bin": offsets(bins_per_part),
        "bin_id": np.asarray(bins, np.int64),
        "inc": inc,
        "n_bins": n_bins,
    }


# ---- the constants, each from a measurement or fitted on the fit half ---------------------------------
CONSTANTS = {
    "half": LOAD / 2,  # a load reaches the L2 half its latency after it leaves the SM, and returns after the other
    "pipe": 2.0,  # cycles a sector at an SM's memory pipeline: fitted on the fit half among 1, 2, 4 (`--fit`)
    "store": 0.0,  # a store nobody waits on: the counter [16,896, 1024] stored 540,672 warps in ~93,000 cycles
    "raw_load": 3.0,  # a load behind its SM's own store: fitted on the fit half among 1.6, 3, 10 (`--fit`)
    "add": 64.0,  # one dependent add at 64 warps on 4 schedulers (bench/race_queue_model.py)
    "retire_per_warp": 18.0,  # a 32-warp block's slot stayed taken 572 cycles after it ended (H200 probe, fit half)
    "first_block": 0.16,  # the first wave: 0.16 cycles a block plus 0.029 a warp (the same probe)
    "first_warp": 0.029,
    "gap": 1.5,  # later blocks: 196 cycles between two blocks on an SM over 132 SMs (H100, bench/gpu_latency.py)
    "late": LOAD / 2,  # a block's warps start 0 to half a load late, as the vector engine's seeded jitter
    "data": float(LOAD),  # the histogram's data load misses the L2 (each value is read once)
    "sm_scope": 1.0,  # 1: a load waits behind any store of its SM to the sector; 0: behind its own warp's only
    "l1_hit": 42.0,  # an L1 copy outlives its miss, a hit taking the H100's shared load (42); 0: it does not
    "l1_update": 1.0,  # 1: the SM's own stores update its L1 copy (write-through); 0: they invalidate it
}


def simulate(shape: Shape, seeds: int, constants: dict = CONSTANTS, prog: dict | None = None) -> tuple[list, list]:
    """The shape's outcome and launch length (cycles) for seeds 0..seeds-1."""
    prog = prog or program(shape)
    c = np.array([constants[name] for name in events.PARAMETERS])
    wpb = -(-shape.threads // 32)
    per_sm = min(race_shapes.BLOCKS_PER_SM, race_shapes.THREADS_PER_SM // shape.threads)
    outcomes, lengths = [], []
    for seed in range(seeds):
        value, end = events.run(seed, c, shape.blocks, wpb, per_sm, prog["inc"], prog["n_bins"], prog["op_first"],
                                prog["op_part"], prog["op_data"], prog["part_sector"], prog["part_raw"],
                                prog["part_bin"], prog["bin_id"])  # fmt: skip
        outcomes.append(float(value[0] if shape.kernel in ("loop_add", "counter") else value.sum()))
        lengths.append(end)
    return outcomes, lengths


# ---- the tables -----------------------------------------------------------------------------------------
def table(half: str, shapes: list[Shape], seeds: int) -> int:
    """One markdown table, as docs/races.md's; returns how many shapes meet the rule."""
    print(f"\n{half} half ({len(shapes)} shapes, {seeds} seeds)\n")
    print("| launch | waves | H200, 16 plain runs | sector model | rule |\n|---|---|---|---|---|")
    met = 0
    for shape in shapes:
        simulated, _ = simulate(shape, seeds)
        measured = next((row for row in MEASURED["shapes"] if row["name"] == shape.name), None)
        if measured is None:  # the smoke run's tiny shapes
            print(f"| {shape.name} | {shape.waves:.2g} | not measured | {race_shapes.describe(simulated)} | - |")
            continue
        ok = race_shapes.verdict(measured["outcomes"], simulated)
        met += ok == "yes"
        shown = f"{race_shapes.describe(measured['outcomes'])} | {race_shapes.describe(simulated)}"
        print(f"| {shape.name} | {shape.waves:.2g} | {shown} | {ok} |", flush=True)
    return met


# the structures tried on the fit half, in the order tried, then the constants' grid on the one kept
STRUCTURES = [
    {"sm_scope": 0.0, "l1_hit": 0.0, "l1_update": 0.0, "pipe": 11.0},  # the mechanisms as first described
    {"sm_scope": 1.0, "l1_hit": 0.0, "l1_update": 0.0, "pipe": 11.0},
    {"sm_scope": 0.0, "l1_hit": 42.0, "l1_update": 0.0, "pipe": 11.0},
    {"sm_scope": 1.0, "l1_hit": 42.0, "l1_update": 0.0, "pipe": 11.0},
    {"sm_scope": 0.0, "l1_hit": 0.0, "l1_update": 0.0, "pipe": 2.0},
    {"sm_scope": 1.0, "l1_hit": 42.0, "l1_update": 0.0, "pipe": 2.0},
    {"sm_scope": 0.0, "l1_hit": 42.0, "l1_update": 1.0, "pipe": 11.0},
    {"sm_scope": 0.0, "l1_hit": 42.0, "l1_update": 1.0, "pipe": 2.0},
    {"sm_scope": 1.0, "l1_hit": 42.0, "l1_update": 1.0, "pipe": 2.0},
]
GRID = [{"pipe": pipe, "raw_load": raw} for pipe in (1.0, 2.0, 4.0) for raw in (1.6, 3.0, 10.0)]
FIT_THREADS = 3_000_000  # the grid skips the fit half's four launches of more threads (the slowest); the table has them


def fit(seeds: int) -> None:
    """How the structure and PIPE and RAW_LOAD were chosen: fit-half scores only, validation never run."""
    fit_half = [s for s in race_shapes.split(race_shapes.SHAPES)[0] if s.total_threads <= FIT_THREADS]
    programs = {shape.name: program(shape) for shape in fit_half}
    kept = {k: CONSTANTS[k] for k in ("sm_scope", "l1_hit", "l1_update")}
    for change in STRUCTURES + [{**kept, **point} for point in GRID]:
        constants = {**CONSTANTS, "raw_load": 3.0, **change}
        met = 0
        for shape in fit_half:
            outcomes, _ = simulate(shape, seeds, constants, programs[shape.name])
            met += race_shapes.verdict(_by_name(shape.name)["outcomes"], outcomes) == "yes"
        shown = " ".join(f"{k}={v:g}" for k, v in change.items())
        print(f"{shown}: fit half {met}/{len(fit_half)} ({seeds} seeds, launches of at most {FIT_THREADS:,} threads)",
              flush=True)  # fmt: skip
    print("\nlaunch lengths, the constants kept, seed 0: H200 by CUDA events less an empty launch | model (cycles)")
    for shape in fit_half:
        _, lengths = simulate(shape, 1, CONSTANTS, programs[shape.name])
        print(f"  {shape.name}: {_busy_cycles(shape):,.0f} | {lengths[0]:,.0f}")


SMOKE_SHAPES = (
    [Shape("loop_add", 4, 64), Shape("counter", 8, 32)],
    [Shape("histogram", 2, 64, 128, 16), Shape("histogram_strided", 2, 64, 512, 64)],
)


def main(argv: list[str]) -> None:
    numbers = [int(a) for a in argv if a.isdigit()]
    seeds = numbers[0] if numbers else 2 if SMOKE else 16
    if "--fit" in argv:
        fit(numbers[0] if numbers else 2)
        return
    halves = SMOKE_SHAPES if SMOKE else race_shapes.split(race_shapes.SHAPES)
    chosen = [h for h in ("fit", "validation") if h in argv] or ["fit", "validation"]
    scores = {}
    began = time.perf_counter()
    for half, shapes in zip(("fit", "validation"), halves):
        if half in chosen:
            scores[half] = (table(half, shapes, seeds), len(shapes))
    print(f"\n{time.perf_counter() - began:.0f} s on this machine")
    print("sector_model " + " ".join(f"{half}={met}/{n}" for half, (met, n) in scores.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
