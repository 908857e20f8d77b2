"""A prefix sum (inclusive scan) of 64 values in one block, in log2(64) = 6 steps,
in one shared buffer."""

import numpy as np
from numba import cuda, float32

THREADS = 64


@cuda.jit
def inclusive_scan(values, out):
    buffer = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    buffer[t] = values[t]
    cuda.syncthreads()
    offset = 1
    while offset < THREADS:
        if t >= offset:
            buffer[t] += buffer[t - offset]
        cuda.syncthreads()
        offset *= 2
    out[t] = buffer[t]


values = np.ones(THREADS, np.float32)
out = np.zeros_like(values)
inclusive_scan[1, THREADS](values, out)
print("out[:8] =", out[:8], "... out[63] =", out[63])
np.testing.assert_array_equal(out, np.cumsum(values))
