"""What each part of a level-`threads` recording costs a memory-bound kernel, on a real GPU.

Hand-written vector adds (2^24 + 11 float32 elements, blocks of 256, as bench/gpu_overhead.py), each
the plain kernel plus one design of what level `threads` records: a block's start and SM, and each
warp's end. Kernel time by CUDA events, each launch queued behind a spinning kernel, median of
REPEATS, over the plain kernel's measured in the same run (rounds alternate the variants so that a
drift of the card's clock touches them all alike).

Variants:
- `stores_now`: today's recorder: thread 0 stores its block's start and SM as the block starts; every
  returning lane stores its warp's end reading (the last store stays).
- `start_only`, `ends_only`: each half of it alone.
- `start_read_early_stored_late`: every thread reads the timer and its SM first, with no branch and
  nothing waiting for the readings; thread 0 stores its block's pair as it returns; the warps' ends
  as today. `..._only`: without the ends. `timer_early_sm_late`: the SM read as thread 0 returns.
- `ends_constant`: each warp's end store without a timer reading; `ends_timer_unstored`: the reading
  without the store.
- `barrier_only`: the plain kernel and a barrier as the threads return (what a barrier alone costs; a
  design that gathers the warps' ends in shared memory and writes them after one cost more than
  today's recorder: docs/performance.md).
Last line: `recorder_floor <variant>=<ratio> ...`.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent.parent))

SMOKE = "--smoke" in sys.argv
REPEATS = 2 if SMOKE else 40
N = 2**12 + 11 if SMOKE else 2**24 + 11
BLOCK = 256
WARPS = BLOCK // 32


def variants(cuda, timer, smid) -> dict:
    """name -> kernel(a, b, c, block_start, block_sm, warp_end)."""

    def plain(a, b, c, bs, bsm, we):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    def stores_now(a, b, c, bs, bsm, we):
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        if t == 0:
            bs[blk] = timer()
            bsm[blk] = smid()
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        we[blk * WARPS + (t >> 5)] = timer()

    def start_only(a, b, c, bs, bsm, we):
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        if t == 0:
            bs[blk] = timer()
            bsm[blk] = smid()
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    def ends_only(a, b, c, bs, bsm, we):
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        we[blk * WARPS + (t >> 5)] = timer()

    def start_read_early_stored_late(a, b, c, bs, bsm, we):
        # every thread reads the timer and its SM first (no branch, nothing waits for the readings);
        # thread 0 stores its block's pair as it returns, beside its warp's end
        start, sm = timer(), smid()
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        we[blk * WARPS + (t >> 5)] = timer()
        if t == 0:
            bs[blk] = start
            bsm[blk] = sm

    def start_read_early_stored_late_only(a, b, c, bs, bsm, we):
        start, sm = timer(), smid()
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        if t == 0:
            bs[blk] = start
            bsm[blk] = sm

    def timer_early_sm_late(a, b, c, bs, bsm, we):
        start = timer()
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        we[blk * WARPS + (t >> 5)] = timer()
        if t == 0:
            bs[blk] = start
            bsm[blk] = smid()

    def ends_constant(a, b, c, bs, bsm, we):
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        we[blk * WARPS + (t >> 5)] = 1

    def ends_timer_unstored(a, b, c, bs, bsm, we):
        t, blk = cuda.threadIdx.x, cuda.blockIdx.x
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        if timer() == 0:  # never: the reading is made and waited for, nothing is stored
            we[blk * WARPS + (t >> 5)] = 1

    def barrier_only(a, b, c, bs, bsm, we):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]
        cuda.syncthreads()

    kernels = [plain, stores_now, start_only, ends_only, start_read_early_stored_late,
               start_read_early_stored_late_only, timer_early_sm_late, ends_constant, ends_timer_unstored,
               barrier_only]  # fmt: skip
    return {k.__name__: cuda.jit(k) for k in kernels}


def times(cuda, kernels: dict, args: tuple) -> dict[str, float]:
    """Median ms of each kernel, the variants alternating round by round."""
    from gpuviz.backends.gpu.intrinsics import simulated as _simulated

    simulated = _simulated()
    def spinning(ns):
        for _ in range(ns // 1000):
            cuda.nanosleep(1000)

    spin = cuda.jit(spinning)
    start, stop = cuda.event(), cuda.event()
    grid = -(-N // BLOCK)
    runs: dict[str, list[float]] = {name: [] for name in kernels}
    for round_ in range(REPEATS + 3):
        for name, kernel in kernels.items():
            cuda.synchronize()
            if not simulated:  # numba's simulator has no nanosleep
                spin[1, 1](2_000_000)
            start.record()
            kernel[grid, BLOCK](*args)
            stop.record()
            stop.synchronize()
            if round_ >= 3:
                runs[name].append(start.elapsed_time(stop))
    return {name: statistics.median(values) for name, values in runs.items()}


def main() -> None:
    from gpuviz.backends.gpu import intrinsics
    from gpuviz.backends.gpu.compat import import_numba_cuda

    cuda = import_numba_cuda()
    kernels = variants(cuda, intrinsics.globaltimer(), intrinsics.smid())
    rng = np.random.default_rng(0)
    grid = -(-N // BLOCK)
    args = (cuda.to_device(rng.random(N, dtype=np.float32)), cuda.to_device(rng.random(N, dtype=np.float32)),
            cuda.device_array(N, np.float32), cuda.device_array(grid, np.uint64), cuda.device_array(grid, np.uint32),
            cuda.to_device(np.zeros(grid * WARPS, np.uint64)))  # fmt: skip
    ms = times(cuda, kernels, args)
    expected = args[0].copy_to_host() + args[1].copy_to_host()
    assert np.array_equal(args[2].copy_to_host(), expected), "a variant computed a wrong sum"
    base = ms["plain"]
    for name, value in ms.items():
        regs = kernels[name].get_regs_per_thread() if hasattr(kernels[name], "get_regs_per_thread") else "-"
        regs = next(iter(regs.values())) if isinstance(regs, dict) else regs
        print(f"{name:30s} {value:.4f} ms  ratio {value / base:.3f}  registers {regs}")
    print("recorder_floor " + " ".join(f"{name}={value / base:.3f}" for name, value in ms.items() if name != "plain"))


if __name__ == "__main__":
    main()
