"""numba-cuda documentation's grid sync kernel (tests/doc_examples/test_cg.py) launched with more blocks
than can be co-resident: the cooperative launch is refused."""

GPUVIZ_EXPECT = {"refused": ["COOPERATIVE_LAUNCH_TOO_LARGE", 28]}

import numpy as np
from numba import cuda


@cuda.jit
def sequential_rows(M):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()

    rows = M.shape[0]
    cols = M.shape[1]

    for row in range(1, rows):
        opposite = cols - col - 1
        # Each row's elements are one greater than the previous row
        M[row, col] = M[row - 1, opposite] + 1
        # Wait until all threads have written their column element,
        # and that the write is visible to all other threads
        g.sync()


A = np.zeros((2, 1024 * 1024), dtype=np.int32)
sequential_rows[A.shape[1] // 32, 32](A)
