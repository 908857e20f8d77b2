"""Vector add as the tutorial writes it, at its size: 2**24 + 11 elements in blocks of 256 threads."""

import numpy as np
from numba import cuda


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    # thread i adds element i
    c[i] = a[i] + b[i]


n = 2**24 + 11
a = np.arange(n, dtype=np.float32)
b = np.ones(n, dtype=np.float32)
c = np.zeros(n, dtype=np.float32)
block = 256
vecadd[(n + block - 1) // block, block](a, b, c)
np.testing.assert_allclose(c, a + b)
print(f"{n} elements, {(n + block - 1) // block} blocks of {block}")
