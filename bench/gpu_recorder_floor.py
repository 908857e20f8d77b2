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
    """name -> kernel(a, b, c, block_start, block_sm, warp_end): the vector add between what a design
    does first (returns what it keeps for the end) and what it does as the thread returns."""
    part = cuda.jit(device=True, forceinline=True)

    @part
    def add(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    @part
    def nothing_first(bs, bsm):
        return 0, 0

    @part
    def stores_first(bs, bsm):  # thread 0 stores its block's start and SM as the block starts
        if cuda.threadIdx.x == 0:
            bs[cuda.blockIdx.x] = timer()
            bsm[cuda.blockIdx.x] = smid()
        return 0, 0

    @part
    def readings_first(bs, bsm):  # every thread, no branch; nothing waits for the readings yet
        return timer(), smid()

    @part
    def timer_first(bs, bsm):
        return timer(), 0

    @part
    def nothing_last(kept, bs, bsm, we):
        pass

    @part
    def warp_end(we):  # every returning lane stores its reading; the last store stays
        we[cuda.blockIdx.x * WARPS + (cuda.threadIdx.x >> 5)] = timer()

    @part
    def end_last(kept, bs, bsm, we):
        warp_end(we)

    @part
    def end_and_readings_last(kept, bs, bsm, we):
        warp_end(we)
        if cuda.threadIdx.x == 0:
            bs[cuda.blockIdx.x] = kept[0]
            bsm[cuda.blockIdx.x] = kept[1]

    @part
    def readings_only_last(kept, bs, bsm, we):
        if cuda.threadIdx.x == 0:
            bs[cuda.blockIdx.x] = kept[0]
            bsm[cuda.blockIdx.x] = kept[1]

    @part
    def end_and_start_sm_late(kept, bs, bsm, we):
        warp_end(we)
        if cuda.threadIdx.x == 0:
            bs[cuda.blockIdx.x] = kept[0]
            bsm[cuda.blockIdx.x] = smid()

    @part
    def constant_end_last(kept, bs, bsm, we):
        we[cuda.blockIdx.x * WARPS + (cuda.threadIdx.x >> 5)] = 1

    @part
    def unstored_reading_last(kept, bs, bsm, we):
        if timer() == 0:  # never: the reading is made and waited for, nothing is stored
            we[0] = 1

    @part
    def barrier_last(kept, bs, bsm, we):
        cuda.syncthreads()

    def kernel(first, last):
        def launched(a, b, c, bs, bsm, we):
            kept = first(bs, bsm)
            add(a, b, c)
            last(kept, bs, bsm, we)

        return cuda.jit(launched)

    designs = {
        "plain": (nothing_first, nothing_last),
        "stores_now": (stores_first, end_last),
        "start_only": (stores_first, nothing_last),
        "ends_only": (nothing_first, end_last),
        "start_read_early_stored_late": (readings_first, end_and_readings_last),
        "start_read_early_stored_late_only": (readings_first, readings_only_last),
        "timer_early_sm_late": (timer_first, end_and_start_sm_late),
        "ends_constant": (nothing_first, constant_end_last),
        "ends_timer_unstored": (nothing_first, unstored_reading_last),
        "barrier_only": (nothing_first, barrier_last),
    }
    return {name: kernel(*parts) for name, parts in designs.items()}


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
