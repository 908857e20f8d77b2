"""Occupancy: a kernel whose blocks each take 48 KiB of shared memory,
on a device of 8 SMs."""

import numpy as np
from numba import cuda, float32

THREADS = 256
STAGE = 12288  # float32s: 48 KiB of shared memory per block


@cuda.jit
def stage_and_copy(a, out):
    stage = cuda.shared.array(STAGE, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    stage[t] = a[i]
    cuda.syncthreads()
    out[i] = stage[t]


a = np.arange(64 * THREADS, dtype=np.float32)
out = np.zeros_like(a)
stage_and_copy[64, THREADS](a, out)
np.testing.assert_array_equal(out, a)
print("copied through shared memory")
