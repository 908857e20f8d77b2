"""Vector add on CuPy arrays, as NVIDIA's CUDA Python chapter writes it; runs on the simulator too."""

import cupy as cp
import numpy as np
from numba import cuda


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


size = 5000
a = cp.random.uniform(-1, 1, size).astype(cp.float32)
b = cp.random.uniform(-1, 1, size).astype(cp.float32)
c = cp.zeros_like(a)
threads = 256
blocks = (size + threads - 1) // threads
vecadd[blocks, threads](a, b, c)
cp.cuda.Device().synchronize()
np.testing.assert_allclose(cp.asnumpy(c), cp.asnumpy(a) + cp.asnumpy(b), rtol=1e-6)
print("cupy vecadd ok:", c.get()[:3])
