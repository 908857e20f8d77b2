"""The same kernel launched on NumPy arrays, then on CuPy arrays, as NVIDIA's CUDA Python chapter
passes them."""

import cupy as cp
import numpy as np
from numba import cuda


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


n = 1000
a = np.arange(n, dtype=np.float32)
b = np.ones(n, np.float32)
c = np.zeros(n, np.float32)
vecadd[4, 256](a, b, c)  # NumPy arrays: host memory

d_a, d_b = cp.asarray(a), cp.asarray(b)  # CuPy arrays: device memory
d_c = cp.zeros(n, cp.float32)
vecadd[4, 256](d_a, d_b, d_c)

assert (c == a + b).all() and (cp.asnumpy(d_c) == a + b).all()
print("both launches added", n, "values")
