"""Segmented reduction: each block sums one segment in shared memory,
with syncthreads between steps."""

import numpy as np
from numba import cuda, float32

THREADS = 4


@cuda.jit
def segment_sums(values, items, sums):
    partial = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * THREADS * items
    total = float32(0)
    for k in range(items):  # each thread first adds its own items
        total += values[base + k * THREADS + t]
    partial[t] = total
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:  # then a tree: half the threads add pairs, until one sum is left
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = partial[0]


values = np.arange(1, 13, dtype=np.float32)  # segments 1-4, 5-8, 9-12
sums = np.zeros(3, np.float32)
segment_sums[3, THREADS](values, 1, sums)
np.testing.assert_allclose(sums, [10, 26, 42])

items = 3  # then segments of THREADS x items values
values = np.arange(1, 3 * THREADS * items + 1, dtype=np.float32)
sums = np.zeros(3, np.float32)
segment_sums[3, THREADS](values, items, sums)
np.testing.assert_allclose(sums, values.reshape(3, -1).sum(axis=1))
print("segment sums:", sums)
