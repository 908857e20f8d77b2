"""Kernels timed by bench/fast_speed.py (the compiled fast path against NumPy and the vector engine) and by
bench/cudasim_ratio.py (against numba's CUDA simulator)."""

import numpy as np
from numba import cuda
from speed_kernels import THREADS, TILE, matmul_tiled, tree_reduction, vecadd  # noqa: F401  (timed here too)

MAX_ITER = 64


@cuda.jit
def stencil_2d(src, dst):
    y, x = cuda.grid(2)
    if 0 < y < src.shape[0] - 1 and 0 < x < src.shape[1] - 1:
        dst[y, x] = (src[y, x] + src[y - 1, x] + src[y + 1, x] + src[y, x - 1] + src[y, x + 1]) * 0.2


@cuda.jit
def mandelbrot(image):
    y, x = cuda.grid(2)
    if y < image.shape[0] and x < image.shape[1]:
        cr = -2.0 + 3.0 * x / image.shape[1]
        ci = -1.5 + 3.0 * y / image.shape[0]
        zr = 0.0
        zi = 0.0
        n = 0
        while n < MAX_ITER and zr * zr + zi * zi < 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            n += 1
        image[y, x] = n


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1  # no atomic: a race (the vector engine runs it)


def inputs(name: str, side: int, matmul_side: int) -> tuple:
    """Fresh arguments of one kernel: side x side threads (2-D kernels: side x side; the tiled matmul: matmul_side
    x matmul_side), the same for every seed-0 call."""
    rng = np.random.default_rng(0)
    threads = side * side
    if name == "vecadd":
        a = rng.random(threads, dtype=np.float32)
        return a, a.copy(), np.zeros(threads, np.float32)
    if name == "stencil_2d":
        return rng.random((side, side)), np.zeros((side, side))
    if name == "mandelbrot":
        return (np.zeros((side, side), np.int32),)
    if name == "tree_reduction":
        return rng.random(threads, dtype=np.float32), np.zeros(threads // THREADS, np.float32)
    if name == "histogram":
        return rng.integers(0, 1 << 20, threads).astype(np.int32), np.zeros(256, np.int32)
    shape = (matmul_side, matmul_side)
    return rng.random(shape, dtype=np.float32), rng.random(shape, dtype=np.float32), np.zeros(shape, np.float32)
