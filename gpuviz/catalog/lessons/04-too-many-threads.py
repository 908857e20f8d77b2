"""A block of 2048 threads: the launch is invalid, and the error says why."""

import numpy as np
from numba import cuda


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


a = np.ones(4096, np.float32)
c = np.zeros_like(a)
vecadd[2, 1024](a, a, c)  # valid: at most 1024 threads per block
try:
    vecadd[2, 2048](a, a, c)
except Exception as error:
    print("Exception occurred:", error)
else:
    raise AssertionError("a block of 2048 threads must be refused")
