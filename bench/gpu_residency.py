"""What the recorded block times mean: an experiment on a real GPU (needs numba-cuda and a GPU).

The tutorial's race, a[i] += 0.5 over 2 elements by [1024, 1024] threads (an SM holds at most 2 such
blocks), in a plain numba kernel in which lane 0 of every warp records %smid and %globaltimer and
%clock64 at its first and last instruction. From these, per SM, the most blocks and warps at once:
- by %globaltimer (one clock for the GPU) and by %clock64 (the SM's own cycle counter);
- with each block's span taken from its warps (first start, last end), and, in a second kernel
  whose warps wait at a barrier before their end reading, with every warp of a block ending together.
Also: the timer's update step, warps whose SM changed between their readings, and what gpuviz's own
trace of the same launch shows (levels threads and accesses) with the timeline's note.
Last line: `residency blocks_by_globaltimer=<n> blocks_by_clock=<n> warps_by_globaltimer=<n> ...`.
"""

from __future__ import annotations

import sys

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit
from gpuviz.backends.gpu.intrinsics import clock64, globaltimer, smid
from gpuviz.backends.gpu.timer import globaltimer_step_ns

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
GRID, BLOCK, N = 4 if SMOKE else 1024, 1024, 2
WARPS = BLOCK // 32
FIELDS = ("sm_start", "sm_end", "timer_start", "timer_end", "clock_start", "clock_end")


cuda = import_numba_cuda()
timer, cycles, sm = globaltimer(), clock64(), smid()


def race(a, out):
    lane0 = cuda.threadIdx.x % 32 == 0
    w = cuda.blockIdx.x * (cuda.blockDim.x // 32) + cuda.threadIdx.x // 32
    if lane0:
        out[0, w] = sm()
        out[2, w] = timer()
        out[4, w] = cycles()
    for i in range(a.size):
        a[i] += 0.5
    if lane0:
        out[5, w] = cycles()
        out[3, w] = timer()
        out[1, w] = sm()


def race_then_barrier(a, out):
    lane0 = cuda.threadIdx.x % 32 == 0
    w = cuda.blockIdx.x * (cuda.blockDim.x // 32) + cuda.threadIdx.x // 32
    if lane0:
        out[0, w] = sm()
        out[2, w] = timer()
        out[4, w] = cycles()
    for i in range(a.size):
        a[i] += 0.5
    cuda.syncthreads()
    if lane0:
        out[5, w] = cycles()
        out[3, w] = timer()
        out[1, w] = sm()


def kernels():
    return numba_jit()(race), numba_jit()(race_then_barrier)


def peak(sm: np.ndarray, start: np.ndarray, end: np.ndarray) -> int:
    """Most intervals open at once on one SM (an end at the same time as a start comes first)."""
    delta = np.r_[np.ones(len(sm), np.int64), -np.ones(len(sm), np.int64)]
    order = np.lexsort((delta, np.r_[start, end], np.r_[sm, sm]))
    return int(np.cumsum(delta[order]).max())


def measure(kernel) -> dict[str, int]:
    out = cuda.to_device(np.zeros((len(FIELDS), GRID * WARPS), np.int64))
    kernel[GRID, BLOCK](cuda.to_device(np.zeros(N, np.float32)), out)  # compile, warm
    kernel[GRID, BLOCK](cuda.to_device(np.zeros(N, np.float32)), out)
    rec = dict(zip(FIELDS, out.copy_to_host()))
    sm = rec["sm_start"]
    block = np.arange(GRID * WARPS) // WARPS
    found = {"warps_moved": int((rec["sm_start"] != rec["sm_end"]).sum()),
             "blocks_on_two_sms": int(sum(len(np.unique(sm[block == b])) > 1 for b in range(GRID)))}  # fmt: skip
    for clock in ("timer", "clock"):
        start, end = rec[f"{clock}_start"], rec[f"{clock}_end"]
        found[f"warps_by_{clock}"] = peak(sm, start, end)
        b_start = np.minimum.reduceat(start, np.arange(0, GRID * WARPS, WARPS))
        b_end = np.maximum.reduceat(end, np.arange(0, GRID * WARPS, WARPS))
        found[f"blocks_by_{clock}"] = peak(sm[::WARPS], b_start, b_end)
    lives = rec["timer_end"] - rec["timer_start"]
    found["warp_life_median_ns"] = int(np.median(lives))
    return found


def traced() -> None:
    import gpuviz
    from gpuviz.core.analysis.residency import residency, residency_note

    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    for i in range(a.size):\n        a[i] += 0.5\n"
    for level in ("threads", "accesses"):
        trace = gpuviz.trace(source, backend="gpu", level=level)[GRID, BLOCK](np.zeros(N, np.float32))
        found = residency(trace)
        print(f"gpuviz trace, level {level}: peak {found.peak} blocks on one SM (limit {found.limit}), "
              f"{found.over} block(s) over by up to {found.excess:,} ns, peak warps {found.peak_warps}; "
              f"plain outcome {trace.outcomes.get('a.plain')}, recorded {trace.after('a')}")  # fmt: skip
        print(f"  timeline note: {residency_note(trace)}")


def main() -> None:
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else device.name
    limits = (device.MAX_THREADS_PER_MULTIPROCESSOR, device.MAX_BLOCKS_PER_MULTIPROCESSOR)
    print(f"device: {name}, {device.MULTIPROCESSOR_COUNT} SMs, max threads/blocks per SM {limits}")
    print(f"globaltimer step: {globaltimer_step_ns()} ns")
    plain_race, barrier_race = kernels()
    results = {}
    for label, kernel in (("warps end on their own", plain_race), ("warps end after a barrier", barrier_race)):
        results[label] = measure(kernel)
        print(f"{label}: " + ", ".join(f"{k}={v}" for k, v in results[label].items()))
    traced()
    own = results["warps end on their own"]
    print("residency " + " ".join(f"{k}={v}" for k, v in own.items()) + " limit_blocks=2 limit_warps=64")


if __name__ == "__main__":
    main()
