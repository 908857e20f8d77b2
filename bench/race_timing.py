"""When the tutorial race's reads and writes happen, per warp: why a[1] ends above a[0] (docs/races.md).

Reads a trace of `for i in range(a.size): a[i] += 0.5` recorded at level `accesses` (a GPU trace, in
ns, or a simulator trace, in cycles) and prints, per element: how the warps' reads spread in time
(over the launch and within a block), the gaps between one warp's accesses, how many reads come after
the element's first write, the generations of read-modify-write the element went through, whether the
warps of a block or of an SM read one value, and how many generations behind the newest write already
made a read was.
Usage: python bench/race_timing.py TRACE.npz [TRACE.npz ...]
       python bench/race_timing.py --sim BLOCKS SEED [SEED ...]   (runs the simulator first)
"""

from __future__ import annotations

import sys

import numpy as np

import gpuviz

RACE = """
from numba import cuda

@cuda.jit
def race(a):
    for i in range(a.size):
        a[i] += 0.5
"""

STEP = 0.5  # what one update adds: a value read is the number of updates it saw, times STEP
ACCESSES = (("r0", 0, 0), ("w0", 0, 1), ("r1", 1, 0), ("w1", 1, 1))  # (name, element, kind)


def warp_accesses(trace) -> dict[str, np.ndarray]:
    """Per warp of the launch: its SM, block, and the time and value of each of its four accesses.

    The lanes of a warp make each access together (one time, one value), so the warp's first lane
    that logged an access stands for the warp."""
    threads, acc = trace.threads, trace.accesses
    per_block = int(np.prod(trace.meta["block"]))
    warps_per_block = (per_block + 31) // 32
    block = threads["block_idx"][:, 0].astype(np.int64)
    warp_of_thread = block * warps_per_block + threads["warp"]
    firsts = np.unique(warp_of_thread, return_index=True)[1]
    table = {"sm": threads["sm"][firsts], "block": block[firsts]}
    warp = warp_of_thread[acc["thread"]]
    for name, element, kind in ACCESSES:
        mine = np.flatnonzero((acc["index"] == element) & (acc["kind"] == kind))
        w, first = np.unique(warp[mine], return_index=True)
        time = np.full(len(firsts), -1, np.int64)
        value = np.full(len(firsts), np.nan)
        time[w], value[w] = acc["time"][mine[first]], acc["value"][mine[first]]
        table[name], table[name + "_value"] = time, value
    return table


def percentiles(x: np.ndarray) -> str:
    p = np.percentile(x, [0, 10, 50, 90, 100])
    return "min {:.0f}, p10 {:.0f}, median {:.0f}, p90 {:.0f}, max {:.0f}".format(*p)


def block_spread(times: np.ndarray, block: np.ndarray) -> float:
    """The median over blocks of the time between a block's first and last warp making the access."""
    order = np.lexsort((times, block))
    edges = np.flatnonzero(np.diff(block[order])) + 1
    lo = np.minimum.reduceat(times[order], np.r_[0, edges])
    hi = np.maximum.reduceat(times[order], np.r_[0, edges])
    return float(np.median(hi - lo))


def shared_value(values: np.ndarray, group: np.ndarray, times: np.ndarray) -> tuple[float, float]:
    """(blocks whose warps all read one value, reads that return what the group's previous read did)."""
    order = np.lexsort((times, group))
    g, v = group[order], values[order]
    same_group = g[1:] == g[:-1]
    repeats = float(np.mean(v[1:][same_group] == v[:-1][same_group]))
    edges = np.r_[0, np.flatnonzero(np.diff(g)) + 1]
    one_value = np.maximum.reduceat(v, edges) == np.minimum.reduceat(v, edges)
    return float(np.mean(one_value)), repeats


def generations_behind(read_time, read_value, write_time, write_value) -> np.ndarray:
    """For each read, how many updates the element had already been given (the highest value written
    at an earlier time) beyond the value the read returned."""
    order = np.argsort(write_time, kind="stable")
    newest = np.maximum.accumulate(write_value[order])
    k = np.searchsorted(write_time[order], read_time, side="left")  # writes strictly before the read
    before = np.where(k > 0, newest[np.maximum(k - 1, 0)], 0.0)
    return np.maximum(before - read_value, 0.0) / STEP


def late_writes(write_time: np.ndarray, write_value: np.ndarray) -> float:
    """The median value of the last 5% of the writes to land (by time)."""
    order = np.argsort(write_time, kind="stable")
    return float(np.median(write_value[order][-max(len(order) // 20, 1) :]))


def element_lines(t: dict, element: int, final: float) -> list[str]:
    r, w = t[f"r{element}"], t[f"w{element}"]
    rv = t[f"r{element}_value"]
    wv = t[f"w{element}_value"]
    after_first_write = float(np.mean(r > w.min()))
    gens = np.unique(rv)
    blocks_one, repeats_sm = shared_value(rv, t["sm"], r)
    behind = generations_behind(r, rv, w, wv)
    return [
        f"  a[{element}] reads: {percentiles(r)}; within a block (median) {block_spread(r, t['block']):.0f}",
        f"       reads after the element's first write: {after_first_write:.1%}",
        f"       generations read: {len(gens)} (values {gens.min():g}..{gens.max():g}); highest written {wv.max():g}, "
        f"{len(r) / (wv.max() / STEP):.0f} warps a generation",
        f"       writes: highest {wv.max():g}, final {final:g}, the last 5% of writes median {late_writes(w, wv):g}",
        f"       one value in a block: {shared_value(rv, t['block'], r)[0]:.1%} of blocks; same value as the "
        f"SM's previous read: {repeats_sm:.1%}",
        f"       generations behind the newest write: median {np.median(behind):.0f}, p90 "
        f"{np.percentile(behind, 90):.0f}, max {behind.max():.0f}; reads behind: {np.mean(behind > 0):.1%}",
    ]


def report(trace, label: str) -> None:
    t = warp_accesses(trace)
    unit = trace.meta.get("time_unit", "?")
    final = trace.args["a"][1]
    print(f"{label}: {trace.meta['grid'][0]} x {trace.meta['block'][0]}, {len(t['sm'])} warps, times in {unit}, "
          f"final {final.tolist()}")  # fmt: skip
    for element in (0, 1):
        print("\n".join(element_lines(t, element, float(final[element]))))
    gaps = {"r0 -> w0": t["w0"] - t["r0"], "w0 -> r1": t["r1"] - t["w0"], "r0 -> r1": t["r1"] - t["r0"],
            "r1 -> w1": t["w1"] - t["r1"]}  # fmt: skip
    for name, gap in gaps.items():
        print(f"  per warp {name}: {percentiles(gap)}")
    ratio = block_spread(t["r1"], t["block"]) / max(block_spread(t["r0"], t["block"]), 1.0)
    print(f"  a[1]'s reads spread over a block {ratio:.1f}x as long as a[0]'s")


def simulate(blocks: int, seed: int):
    a = np.zeros(2, np.float32)
    return gpuviz.run(RACE, blocks, 1024, a, level="accesses", seed=seed)


def main(argv: list[str]) -> None:
    if argv == ["--smoke"]:  # tests/test_bench_smoke.py: the simulator's part at a tiny launch
        argv = ["--sim", "2"]
    if argv[:1] == ["--sim"]:
        blocks = int(argv[1])
        for seed in argv[2:] or ["0"]:
            report(simulate(blocks, int(seed)), f"simulator seed {seed}")
        return
    for path in argv:
        trace = gpuviz.load(path)
        plain = trace.outcomes.get("a.plain")
        report(trace, f"{path} (without recording: {None if plain is None else plain.tolist()})")


if __name__ == "__main__":
    main(sys.argv[1:])
