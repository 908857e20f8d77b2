"""A histogram counted twice: with atomics on the global bins, then per block in shared memory first."""

import numpy as np
from numba import cuda, int32

BINS = 16


@cuda.jit
def histogram_atomic(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)


@cuda.jit
def histogram_private(data, bins):
    counts = cuda.shared.array(BINS, int32)  # the block's own bins
    t = cuda.threadIdx.x
    if t < BINS:
        counts[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(counts, data[i] % BINS, 1)
    cuda.syncthreads()
    if t < BINS:
        cuda.atomic.add(bins, t, counts[t])  # the block's count of bin t


data = np.random.default_rng(0).integers(0, 1000, 4096).astype(np.int32)
expected = np.bincount(data % 16, minlength=16)
fixed = np.zeros(16, np.int32)
histogram_atomic[16, 256](data, fixed)
private = np.zeros(16, np.int32)
histogram_private[16, 256](data, private)
assert (fixed == expected).all() and (private == expected).all()
print("atomic:", fixed.sum(), "; privatised:", private.sum())
