"""How fast a GPU takes loads and stores of hot sectors, by kind of access (needs numba-cuda and a GPU).

The race calibration's launch times (docs/races.md, "A per-warp sector model") say that hot histograms
move 1-2 sector requests a cycle across the whole GPU, however many sectors they hit, and a 65,536-bin
histogram about 11. This splits that rate by kind of access, on one full wave of 1,024-thread blocks,
grid-stride over VALUES values, bins of 16 to 65,536 int32 (2 to 8,192 sectors):
- loads: every lane loads its bin (the bins are never written, so the loads may hit the L1);
- stores: every lane stores to its bin, nobody loads;
- apart: a lane loads its bin from one array and stores to the same bin of another: no load follows a
  store to its sector;
- same: `bins[b] += 1`, the grid-stride histogram: the next load may follow the lane's own store.
Each launch is timed by CUDA events (median of RUNS, after one warm-up), less an empty launch of the same
kernel. Sector requests count, per warp and grid-stride step, the distinct 32-byte sectors its lanes hit,
per access. Last line: `sector_timing <kernel>/<bins>=<sector requests a ns> ...`.
Usage: python bench/gpu_sector_timing.py [--smoke]
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda

import_numba_cuda()  # numba-cuda 0.30 needs np.row_stack, gone from NumPy 2.5: the shim adds it

from numba import cuda  # noqa: E402

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
BLOCKS, THREADS = (4, 64) if SMOKE else (264, 1024)
VALUES = 4096 if SMOKE else 1 << 22
BINS = (16,) if SMOKE else (16, 1024, 4096, 65536)
RUNS = 2 if SMOKE else 5


@cuda.jit
def loads(data, bins, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    total = 0
    for i in range(start, data.size, stride):
        total += bins[data[i] % bins.size]
    out[start] = total  # one store per thread, to its own slot, keeps the loads


@cuda.jit
def stores(data, bins, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, data.size, stride):
        bins[data[i] % bins.size] = i


@cuda.jit
def apart(data, bins, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, data.size, stride):
        b = data[i] % bins.size
        out[b] = bins[b] + 1


@cuda.jit
def same(data, bins, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, data.size, stride):
        bins[data[i] % bins.size] += 1


KERNELS = {"loads": (loads, 1), "stores": (stores, 1), "apart": (apart, 2), "same": (same, 2)}  # accesses a value


def sector_requests(data: np.ndarray, n_bins: int) -> int:
    """Distinct sectors per warp and grid-stride step, summed: what one access of every value asks of the L2."""
    grid = BLOCKS * THREADS
    padded = np.full(-(-data.size // grid) * grid, -1, np.int64)
    padded[: data.size] = (data % n_bins) // 8
    rows = np.sort(padded.reshape(-1, 32), axis=1)
    first = np.ones((len(rows), 1), bool)
    return int(((rows >= 0) & np.concatenate([first, rows[:, 1:] != rows[:, :-1]], axis=1)).sum())


def launch_us(kernel, data, bins, out) -> float:
    """Median CUDA-event time of RUNS launches, after one warm-up."""
    times = []
    for run in range(RUNS + 1):
        start, end = cuda.event(), cuda.event()
        start.record()
        kernel[BLOCKS, THREADS](data, bins, out)
        end.record()
        end.synchronize()
        if run:
            times.append(cuda.event_elapsed_time(start, end) * 1e3)
    return statistics.median(times)


def main() -> None:
    data = np.random.default_rng(0).integers(0, 1 << 30, VALUES).astype(np.int32)
    device_data, empty = cuda.to_device(data), cuda.to_device(data[:0])
    out = cuda.to_device(np.zeros(max(BLOCKS * THREADS, max(BINS)), np.int32))
    card = cuda.get_current_device().name
    card = card.decode() if isinstance(card, bytes) else card
    print(f"{card}: [{BLOCKS}, {THREADS}], {VALUES:,} values, {RUNS} runs each")
    print("| kernel | bins | launch, us | less an empty launch | sector requests | requests a ns |")
    print("|---|---|---|---|---|---|")
    rates = []
    for n_bins in BINS:
        requests = sector_requests(data, n_bins)
        for name, (kernel, accesses) in KERNELS.items():
            bins = cuda.to_device(np.zeros(n_bins, np.int32))
            idle = launch_us(kernel, empty, bins, out)
            busy = launch_us(kernel, device_data, bins, out) - idle
            rate = requests * accesses / (busy * 1e3)
            rates.append(f"{name}/{n_bins}={rate:.2f}")
            print(f"| {name} | {n_bins:,} | {busy + idle:.1f} | {busy:.1f} | {requests * accesses:,} | {rate:.2f} |",
                  flush=True)  # fmt: skip
    print("sector_timing " + " ".join(rates))


if __name__ == "__main__":
    main()
