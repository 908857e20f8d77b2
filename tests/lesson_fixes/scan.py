"""A prefix sum (inclusive scan) of 64 values in one block: log2(64) = 6 steps, two buffers and barriers."""

import numpy as np
from numba import cuda, float32

THREADS = 64


@cuda.jit
def inclusive_scan(values, out):
    ping = cuda.shared.array(THREADS, float32)
    pong = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    ping[t] = values[t]
    cuda.syncthreads()
    offset = 1
    step = 0
    while offset < THREADS:
        if step % 2 == 0:  # read one buffer, write the other: no thread overwrites what another still reads
            pong[t] = ping[t] + ping[t - offset] if t >= offset else ping[t]
        else:
            ping[t] = pong[t] + pong[t - offset] if t >= offset else pong[t]
        cuda.syncthreads()
        offset *= 2
        step += 1
    out[t] = ping[t] if step % 2 == 0 else pong[t]


values = np.ones(THREADS, np.float32)
out = np.zeros_like(values)
inclusive_scan[1, THREADS](values, out)
np.testing.assert_array_equal(out, np.cumsum(values))
print("out[:8] =", out[:8], "... out[63] =", out[63])
