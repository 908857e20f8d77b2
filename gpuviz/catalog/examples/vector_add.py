"""Vector add whose size is not a multiple of the block: the bounds check keeps the extra threads idle."""

import numpy as np
from numba import cuda


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


n = 10_000
a = np.arange(n, dtype=np.float32)
b = np.full(n, 2.0, dtype=np.float32)
c = np.zeros_like(a)
block = 256
grid = (n + block - 1) // block
vecadd[grid, block](a, b, c)
np.testing.assert_allclose(c, a + b)
print(f"vecadd: {n} elements on {grid} blocks of {block}; c[:4] = {c[:4]}")
