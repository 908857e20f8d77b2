"""Which part of a recording changes a race? Hand-written variants of `counter[0] += 1`, on a real GPU.

Each variant adds one kind of recording work to the plain kernel and nothing else, so that its
outcome (the counter after the launch, 16 runs from zero) shows what that work does to the race:
- plain: the kernel as it is;
- start_stores: thread 0 stores the block's start and SM, lane 0 the warp's start, before the access
  (as the recorder's level `threads` does), and every lane stores its end reading;
- end_stores: the same readings taken at the start, but every store made as the thread ends;
- window_timers: %globaltimer read before the load, between the load and the store and after the
  store, all stores at the end;
- window_clocks: the same with %clock64;
- window_tag: the load's record (a 4-byte tag) stored between the load and the store;
- window_record: the load's tag and value stored between the load and the store, as the recorder's
  level `accesses` does.
The rule of docs/gpu.md ("same": median inside the plain [min, max], every run inside
[0.75 x min, 1.25 x max]) is applied to each. Usage: python bench/gpu_race_perturbation.py [runs]
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

from gpuviz.backends.gpu import intrinsics
from gpuviz.backends.gpu.compat import import_numba_cuda

cuda = import_numba_cuda()

from numba import uint32  # noqa: E402

SMOKE = "--smoke" in sys.argv
SHAPES = [(2, 64)] if SMOKE else [(1024, 1024), (8192, 128), (264, 1024)]
now, clock, sm = intrinsics.globaltimer(), intrinsics.clock64(), intrinsics.smid()


@cuda.jit
def plain(c, bs, bsm, ws, we, tag, value):
    c[0] += 1


@cuda.jit
def start_stores(c, bs, bsm, ws, we, tag, value):
    t, b = cuda.threadIdx.x, cuda.blockIdx.x
    w = b * (cuda.blockDim.x // 32) + t // 32
    if t == 0:
        bs[b] = now()
        bsm[b] = sm()
    start = now()
    if t % 32 == 0:
        ws[w] = start
    c[0] += 1
    we[w] = now()


@cuda.jit
def end_stores(c, bs, bsm, ws, we, tag, value):
    t, b = cuda.threadIdx.x, cuda.blockIdx.x
    w = b * (cuda.blockDim.x // 32) + t // 32
    start, where = now(), sm()
    c[0] += 1
    if t == 0:
        bs[b] = start
        bsm[b] = where
    if t % 32 == 0:
        ws[w] = start
    we[w] = now()


def _windowed(read, store_tag: bool, store_value: bool):
    @cuda.jit
    def kernel(c, bs, bsm, ws, we, tag, value):
        t, b = cuda.threadIdx.x, cuda.blockIdx.x
        g, n = b * cuda.blockDim.x + t, cuda.gridDim.x * cuda.blockDim.x
        w = b * (cuda.blockDim.x // 32) + t // 32
        start = read()
        v = c[0]
        loaded = read()
        if store_tag:
            tag[g] = uint32(loaded - start)
        if store_value:
            value[g] = v
        c[0] = v + 1
        stored = read()
        if not store_tag:
            tag[g] = uint32(loaded - start)
        if not store_value:
            value[g] = v
        tag[n + g] = uint32(stored - start)
        value[n + g] = v + 1
        if t % 32 == 0:
            ws[w] = start
        we[w] = now()

    return kernel


VARIANTS = {
    "plain": plain,
    "start_stores": start_stores,
    "end_stores": end_stores,
    "window_timers": _windowed(now, False, False),
    "window_clocks": _windowed(clock, False, False),
    "window_tag": _windowed(now, True, False),
    "window_record": _windowed(now, True, True),
}


def outcomes(kernel, grid: int, block: int, runs: int) -> list[int]:
    threads = grid * block
    buffers = [cuda.device_array(grid, np.uint64), cuda.device_array(grid, np.uint32),
               cuda.device_array(threads // 32 + 1, np.uint64), cuda.device_array(threads // 32 + 1, np.uint64),
               cuda.device_array(2 * threads, np.uint32), cuda.device_array(2 * threads, np.int32)]  # fmt: skip
    found = []
    for _ in range(runs):
        counter = cuda.to_device(np.zeros(1, np.int32))
        kernel[grid, block](counter, *buffers)
        cuda.synchronize()
        found.append(int(counter.copy_to_host()[0]))
    return found


def same(plain_runs: list[int], runs: list[int]) -> bool:
    low, high = min(plain_runs), max(plain_runs)
    return low <= statistics.median(runs) <= high and all(0.75 * low <= r <= 1.25 * high for r in runs)


def main() -> None:
    words = [w for w in sys.argv[1:] if w != "--smoke"]
    runs = 2 if SMOKE else int(words[0]) if words else 16
    device = getattr(cuda.get_current_device(), "name", "numba's CUDA simulator")
    print(f"device: {device.decode() if isinstance(device, bytes) else device}; {runs} runs each")
    print("| launch | variant | min-max (median) | same as plain |")
    print("|---|---|---|---|")
    for grid, block in SHAPES:
        base = None
        for name, kernel in VARIANTS.items():
            found = outcomes(kernel, grid, block, runs)
            base = base or found
            verdict = "yes" if same(base, found) else "NO"
            print(
                f"| [{grid},{block}] | {name} | {min(found)}-{max(found)} ({statistics.median(found):g}) | {verdict} |"
            )


if __name__ == "__main__":
    main()
