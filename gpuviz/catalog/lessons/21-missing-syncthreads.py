"""The tree reduction of the segmented sum on blocks of 64 threads,
each block summing 64 ones."""

import numpy as np
from numba import cuda, float32

THREADS = 64


@cuda.jit
def block_sum(values, sums):
    partial = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    partial[t] = values[cuda.grid(1)]
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = partial[0]


values = np.ones(4 * THREADS, np.float32)
sums = np.zeros(4, np.float32)
block_sum[4, THREADS](values, sums)
print("sums:", sums)
np.testing.assert_array_equal(sums, values.reshape(4, THREADS).sum(axis=1))
