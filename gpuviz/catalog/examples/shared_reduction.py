"""Each block sums its segment in shared memory: a tree reduction with cuda.syncthreads()."""

import numpy as np
from numba import cuda, float32

THREADS = 128


@cuda.jit
def block_sum(values, sums):
    partial = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    partial[t] = values[i] if i < values.size else float32(0)
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = partial[0]


values = np.arange(1000, dtype=np.float32)
blocks = (values.size + THREADS - 1) // THREADS
sums = np.zeros(blocks, dtype=np.float32)
block_sum[blocks, THREADS](values, sums)
expected = [values[b * THREADS:(b + 1) * THREADS].sum() for b in range(blocks)]
np.testing.assert_allclose(sums, expected)
print("block sums:", sums[:3], "... total", sums.sum())
