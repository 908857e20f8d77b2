"""The tutorial race on a real GPU without gpuviz's recorder: outcomes and per-warp timing.

For [64, 1024], [264, 1024] and [1024, 1024] (needs numba-cuda and a GPU):
- plain: `for i in range(a.size): a[i] += 0.5`, run RUNS times; the outcomes;
- timed: the same two read-modify-writes, written out, with lane 0 of every warp reading
  %globaltimer and %clock64 before the load of a[0], after the store of a[0] (the store needs the
  loaded value, so the reading comes after the load returned) and after the second store. The
  readings stay in registers and are stored once at the end, so the race makes no other memory
  traffic. Three variants, 5 runs each: the second element a[1] with a constant index; a[1] through
  an index passed at launch; a[32] (another 128-byte line) through that index.
Prints, per launch and variant, the outcomes, each element's per-warp load-to-store time in cycles
(the latency of a load of the hot line, waits included), when the warps issued their first and
second loads, and whether a block's warps read one value. Compare with `bench/race_timing.py` and
docs/races.md.
Last, the tutorial's launch from its own array [0, 1] (the engine's issue measured that), plain.
Usage: python bench/gpu_race_timing.py [runs]
"""

from __future__ import annotations

import sys

import numpy as np

from gpuviz.backends.gpu import intrinsics
from gpuviz.backends.gpu.compat import import_numba_cuda

import_numba_cuda()  # numba-cuda 0.30 needs np.row_stack, gone from NumPy 2.5: the shim adds it

from llvmlite import ir  # noqa: E402
from numba import cuda, types  # noqa: E402
from numba.cuda.extending import intrinsic  # noqa: E402

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
LAUNCHES = (2,) if SMOKE else (64, 264, 1024)
THREADS = 1024


def _timer(register: str):
    # Not gpuviz's own timers (backends/gpu/intrinsics.py): the memory clobber here keeps the compiler
    # from moving the loads and stores of a[] across the reading.
    @intrinsic
    def read(typingctx):
        def codegen(context, builder, signature, args):
            kind = ir.FunctionType(ir.IntType(64), [])
            asm = ir.InlineAsm(kind, f"mov.u64 $0, {register};", "=l,~{memory}", side_effect=True)
            return builder.call(asm, [])

        return types.int64(), codegen

    return read


globaltimer = _timer("%globaltimer")
clock64 = _timer("%clock64")


smid = intrinsics.smid()


@cuda.jit
def race(a):
    for i in range(a.size):
        a[i] += 0.5


@cuda.jit(device=True)
def _timed_pair(a, second, ns, cycles, seen, sm):
    t0, c0 = globaltimer(), clock64()
    v0 = a[0]
    a[0] = v0 + 0.5
    t1, c1 = globaltimer(), clock64()
    v1 = a[second]
    a[second] = v1 + 0.5
    t2, c2 = globaltimer(), clock64()
    if cuda.threadIdx.x % 32 == 0:
        w = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // 32
        ns[w, 0], ns[w, 1], ns[w, 2] = t0, t1, t2
        cycles[w, 0], cycles[w, 1], cycles[w, 2] = c0, c1, c2
        seen[w, 0], seen[w, 1] = v0, v1
        sm[w] = smid()


@cuda.jit
def race_timed_constant(a, second, ns, cycles, seen, sm):
    _timed_pair(a, 1, ns, cycles, seen, sm)  # `second` unused: the compiler sees the index 1


@cuda.jit
def race_timed_index(a, second, ns, cycles, seen, sm):
    _timed_pair(a, second, ns, cycles, seen, sm)


VARIANTS = (("a[1], constant index", race_timed_constant, 1), ("a[1], index passed", race_timed_index, 1),
            ("a[32], index passed", race_timed_index, 32))  # fmt: skip


def plain(blocks: int, runs: int, start=(0.0, 0.0)) -> list[tuple[float, float]]:
    outcomes = []
    for _ in range(runs):
        a = cuda.to_device(np.array(start, np.float32))
        race[blocks, THREADS](a)
        outcomes.append(tuple(float(x) for x in a.copy_to_host()))
    return outcomes


def timed(kernel, blocks: int, second: int) -> dict[str, np.ndarray]:
    warps = blocks * THREADS // 32
    a = cuda.to_device(np.zeros(second + 1, np.float32))
    out = {"ns": np.zeros((warps, 3), np.int64), "cycles": np.zeros((warps, 3), np.int64),
           "seen": np.zeros((warps, 2), np.float32), "sm": np.zeros(warps, np.int32)}  # fmt: skip
    dev = {k: cuda.to_device(v) for k, v in out.items()}
    kernel[blocks, THREADS](a, second, dev["ns"], dev["cycles"], dev["seen"], dev["sm"])
    cuda.synchronize()
    result = {k: v.copy_to_host() for k, v in dev.items()}
    result["final"] = a.copy_to_host()[[0, second]]
    result["ns"] = result["ns"] - result["ns"][:, 0].min()
    return result


def pct(x: np.ndarray) -> str:
    return "p10 {:.0f}, median {:.0f}, p90 {:.0f}, max {:.0f}".format(*np.percentile(x, [10, 50, 90, 100]))


def one_value_blocks(seen: np.ndarray, blocks: int) -> float:
    per_block = seen.reshape(blocks, -1)
    return float(np.mean(per_block.max(axis=1) == per_block.min(axis=1)))


def report(blocks: int, runs: int) -> None:
    outcomes = plain(blocks, runs)
    a0, a1 = (sorted({o[k] for o in outcomes}) for k in (0, 1))
    print(f"[{blocks}, {THREADS}] plain, {runs} runs: " + " ".join(f"[{x:g},{y:g}]" for x, y in outcomes))
    print(f"  a[0] {a0[0]:g}-{a0[-1]:g}, a[1] {a1[0]:g}-{a1[-1]:g}; a[1] >= a[0] in "
          f"{sum(y >= x for x, y in outcomes)} of {runs}")  # fmt: skip
    for name, kernel, second in VARIANTS:
        timed_report(name, kernel, blocks, second)


def timed_report(name: str, kernel, blocks: int, second: int) -> None:
    more = [timed(kernel, blocks, second)["final"] for _ in range(4)]
    t = timed(kernel, blocks, second)
    ns, cyc = t["ns"], t["cycles"]
    finals = " ".join(f"[{x:g},{y:g}]" for x, y in [*more, t["final"]])
    print(f"  timed, {name}, 5 runs: {finals}; the last ends {ns[:, 2].max()} ns after the first load")
    print(f"    load a[0] -> after store a[0], cycles: {pct(cyc[:, 1] - cyc[:, 0])}")
    print(f"    load a[{second}] -> after store a[{second}], cycles: {pct(cyc[:, 2] - cyc[:, 1])}")
    print(f"    first loads issued over ns: {pct(ns[:, 0])}; second loads: {pct(ns[:, 1])}")
    for k, element in ((0, "a[0]"), (1, f"a[{second}]")):
        values = np.unique(t["seen"][:, k])
        print(f"    {element} values read: {len(values)} ({values.min():g}..{values.max():g}); one value in a "
              f"block: {one_value_blocks(t['seen'][:, k], blocks):.1%}")  # fmt: skip


def main(runs: int) -> None:
    name = cuda.get_current_device().name
    print(name.decode() if isinstance(name, bytes) else name)
    race[1, 32](cuda.to_device(np.zeros(2, np.float32)))  # compile before the runs
    for blocks in LAUNCHES:
        report(blocks, runs)
    tutorial = plain(LAUNCHES[-1], runs, (0.0, 1.0))  # the tutorial's own array, as the engine's issue measured it
    print(f"[{LAUNCHES[-1]}, {THREADS}] from the tutorial's [0, 1], {runs} plain runs: "
          + " ".join(f"[{x:g},{y:g}]" for x, y in tutorial))


if __name__ == "__main__":
    runs = [int(a) for a in sys.argv[1:] if a != "--smoke"]
    main(runs[0] if runs else 1 if SMOKE else 20)
