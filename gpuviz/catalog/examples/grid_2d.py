"""A 2-D grid: one thread per matrix element, indexed with cuda.grid(2)."""

import numpy as np
from numba import cuda


@cuda.jit
def scale_2d(matrix, factor):
    row, col = cuda.grid(2)
    if row < matrix.shape[0] and col < matrix.shape[1]:
        matrix[row, col] = matrix[row, col] * factor + row


m = np.arange(20 * 30, dtype=np.float64).reshape(20, 30)
expected = m * 3.0 + np.arange(20)[:, None]
scale_2d[(3, 4), (8, 8)](m, 3.0)
np.testing.assert_allclose(m, expected)
print("scale_2d ok:", m.shape)
