"""A barrier inside an `if`: only some threads of the block reach cuda.syncthreads()."""

import numpy as np
from numba import cuda, float32

THREADS = 64


@cuda.jit
def shift_left(values, out):
    buffer = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    buffer[t] = values[cuda.grid(1)]
    if t < THREADS - 1:  # the last thread has no right neighbour
        cuda.syncthreads()
        out[cuda.grid(1)] = buffer[t + 1]


values = np.arange(2 * THREADS, dtype=np.float32)
out = np.zeros_like(values)
shift_left[2, THREADS](values, out)
print("out[:4] =", out[:4])
expected = np.append(values[1:], 0)
expected[THREADS - 1 :: THREADS] = 0  # the last thread of a block writes nothing
np.testing.assert_array_equal(out, expected)
