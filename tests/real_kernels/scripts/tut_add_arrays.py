"""Tutorial "What's the point of GPU kernels?" (/work/shared/seeds/001_98b8d772e6ac2d96.txt): add_arrays_gpu."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda

# Size of arrays
N = 1024


# Define a GPU kernel
@cuda.jit
def add_arrays_gpu(a, b, result):
    idx = cuda.grid(1)
    if idx < a.size:
        result[idx] = a[idx] + b[idx]


# Create sample arrays
a = np.arange(N, dtype=np.float32)
b = np.arange(N, dtype=np.float32)
result = np.zeros_like(a)
# Launch the kernel
threads_per_block = 64
blocks_per_grid = (a.size + (threads_per_block - 1)) // threads_per_block
add_arrays_gpu[blocks_per_grid, threads_per_block](a, b, result)
print(result[:10])  # Print first 10 results
np.testing.assert_array_equal(result, a + b)
