"""numba-cuda documentation, cooperative groups grid sync (tests/doc_examples/test_cg.py).
Harness: 1024x1024 -> 64x64."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda
from numba.cuda import int32

# Kernel definition
sig = (int32[:, ::1],)


@cuda.jit(sig)
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


# Empty input data
A = np.zeros((64, 64), dtype=np.int32)
# A somewhat arbitrary choice (one warp), but generally smaller block sizes
# allow more blocks to be launched (noting that other limitations on
# occupancy apply such as shared memory size)
blockdim = 32
griddim = A.shape[1] // blockdim

# Skip this test if the grid size used in the example is too large for
# a cooperative launch on the current GPU
mb = sequential_rows.overloads[sig].max_cooperative_grid_blocks(blockdim)
assert mb >= griddim, "Device does not support a large enough coop grid"

# Kernel launch - this is implicitly a cooperative launch
sequential_rows[griddim, blockdim](A)

# Sanity check - are the results what we expect?
reference = np.tile(np.arange(64), (64, 1)).T
np.testing.assert_equal(A, reference)
