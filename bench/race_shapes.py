"""The launch shapes of the race calibration, and the rule that splits them into a fit and a validation half.

Three atomic-free kernel families (a loop of `a[i] += 0.5`, a counter `c[0] += 1`, a histogram one value
per thread or grid-stride) over blocks of 32 to 1,024 threads, a quarter wave to 64 waves and 16 to
65,536 bins. bench/gpu_fidelity.py measures them with plain numba on a GPU; bench/race_compare.py runs
them on the simulator. The split was fixed (and committed) before any constant was fitted: within each
kernel, shapes sorted by thread count (then threads per block) alternate fit, validation, fit, ...
The model may be fitted on the fit half only; the validation half is only reported.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

SOURCES = {
    "loop_add": """
from numba import cuda

@cuda.jit
def loop_add(a):
    for i in range(a.size):
        a[i] += 0.5
""",
    "counter": """
from numba import cuda

@cuda.jit
def counter(c):
    c[0] += 1
""",
    "histogram": """
from numba import cuda

@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1
""",
    "histogram_strided": """
from numba import cuda

@cuda.jit
def histogram_strided(data, bins):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, data.size, stride):
        bins[data[i] % bins.size] += 1
""",
}

SMS, THREADS_PER_SM, BLOCKS_PER_SM = 132, 2048, 32  # an H100 or H200: what "a wave" means below


@dataclass(frozen=True)
class Shape:
    """One launch: a kernel of SOURCES, its grid, and for histograms how many values go into how many bins."""

    kernel: str
    blocks: int
    threads: int  # per block
    values: int = 0
    bins: int = 0

    @property
    def name(self) -> str:
        sizes = f" {self.values:,} into {self.bins:,}" if self.bins else ""
        return f"{self.kernel} [{self.blocks:,}, {self.threads}]{sizes}"

    @property
    def total_threads(self) -> int:
        return self.blocks * self.threads

    @property
    def waves(self) -> float:
        """Blocks over the blocks a GPU of SMS SMs holds at once."""
        per_sm = min(BLOCKS_PER_SM, THREADS_PER_SM // self.threads)
        return self.blocks / (SMS * per_sm)

    def inputs(self) -> dict[str, np.ndarray]:
        """Fresh inputs: the loop's array starts as the tutorial's [0, 1]; histogram values are uniform."""
        if self.kernel == "loop_add":
            return {"a": np.array([0.0, 1.0], np.float32)}
        if self.kernel == "counter":
            return {"c": np.zeros(1, np.int32)}
        data = np.random.default_rng(0).integers(0, 1 << 30, self.values).astype(np.int32)
        return {"data": data, "bins": np.zeros(self.bins, np.int32)}

    def outcome(self, arrays: dict[str, np.ndarray]) -> float:
        """One number per run: a[0], the counter, or how many increments the bins kept."""
        if self.kernel == "loop_add":
            return float(arrays["a"][0])
        if self.kernel == "counter":
            return float(arrays["c"][0])
        return float(arrays["bins"].sum())


SHAPES = [
    Shape("loop_add", 64, 1024),
    Shape("loop_add", 4224, 32),
    Shape("loop_add", 264, 1024),
    Shape("loop_add", 16384, 64),
    Shape("loop_add", 1024, 1024),
    Shape("loop_add", 8448, 128),
    Shape("loop_add", 67584, 32),
    Shape("loop_add", 4224, 1024),
    Shape("loop_add", 16896, 1024),
    Shape("counter", 4224, 32),
    Shape("counter", 2112, 128),
    Shape("counter", 264, 1024),
    Shape("counter", 16896, 64),
    Shape("counter", 1056, 1024),
    Shape("counter", 67584, 32),
    Shape("counter", 4224, 1024),
    Shape("counter", 270336, 32),
    Shape("counter", 16896, 1024),
    Shape("histogram", 16, 256, 4096, 16),
    Shape("histogram", 256, 256, 65536, 256),
    Shape("histogram", 4224, 32, 135168, 16),
    Shape("histogram", 264, 1024, 270336, 65536),
    Shape("histogram", 4096, 256, 1 << 20, 16),
    Shape("histogram", 1024, 1024, 1 << 20, 4096),
    Shape("histogram", 67584, 32, 2162688, 1024),
    Shape("histogram", 4224, 1024, 4325376, 256),
    Shape("histogram", 16384, 1024, 1 << 24, 65536),
    Shape("histogram_strided", 132, 32, 1 << 16, 16),
    Shape("histogram_strided", 16, 1024, 1 << 18, 64),
    Shape("histogram_strided", 4224, 32, 1 << 22, 1024),
    Shape("histogram_strided", 1024, 256, 1 << 20, 16),
    Shape("histogram_strided", 2112, 128, 1 << 22, 16),
    Shape("histogram_strided", 528, 512, 1 << 20, 65536),
    Shape("histogram_strided", 264, 1024, 1 << 24, 4096),
    Shape("histogram_strided", 4224, 1024, 1 << 24, 256),
]


def split(shapes: list[Shape]) -> tuple[list[Shape], list[Shape]]:
    """Fit and validation halves: per kernel, sorted by (thread count, threads per block), alternating
    fit, validation, ... so that both halves run from the smallest launch to the largest."""
    fit, validation = [], []
    for kernel in SOURCES:
        mine = sorted((s for s in shapes if s.kernel == kernel), key=lambda s: (s.total_threads, s.threads))
        fit += mine[0::2]
        validation += mine[1::2]
    return fit, validation


def verdict(hardware: list[float], simulated: list[float]) -> str:
    """'yes', or what the rule misses: the median, a seed outside the band, or no variation where hardware varies."""
    low, high = min(hardware), max(hardware)
    misses = []
    if not low <= statistics.median(simulated) <= high:
        misses.append("median")
    if not all(0.75 * low <= x <= 1.25 * high for x in simulated):
        misses.append("band")
    if len(set(hardware)) > 1 and len(set(simulated)) < 2:
        misses.append("no variation")
    return "yes" if not misses else "NO: " + ", ".join(misses)


def describe(values: list[float]) -> str:
    """min-max (median, how many distinct values), as the calibration tables show outcomes."""
    return f"{min(values):g}-{max(values):g} (median {statistics.median(values):g}, {len(set(values))} distinct)"
