"""Element-wise add of two arrays: N = 1,000 elements, 64 threads per block, ceil(N / 64) blocks."""

import math

import numpy as np
from numba import cuda


@cuda.jit
def add_arrays_gpu(a, b, result):
    i = cuda.grid(1)
    if i < a.size:
        result[i] = a[i] + b[i]


n = 1000
a = np.random.default_rng(0).random(n).astype(np.float32)
b = np.random.default_rng(1).random(n).astype(np.float32)
result = np.zeros(n, np.float32)
threads_per_block = 64
blocks_per_grid = math.ceil(n / threads_per_block)
add_arrays_gpu[blocks_per_grid, threads_per_block](a, b, result)
np.testing.assert_allclose(result, a + b)
print(f"{blocks_per_grid} blocks of {threads_per_block} threads")
