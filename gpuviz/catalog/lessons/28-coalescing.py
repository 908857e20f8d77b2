"""A 2-D copy of a 64x64 array, one thread per element, on blocks of 32x32 threads."""

import numpy as np
from numba import cuda


@cuda.jit
def copy_2d(a, b):
    row, col = cuda.grid(2)
    if row < a.shape[0] and col < a.shape[1]:
        b[row, col] = a[row, col]


a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
b = np.zeros_like(a)
copy_2d[(2, 2), (32, 32)](a, b)
np.testing.assert_array_equal(b, a)
print("copied", a.size, "elements")
