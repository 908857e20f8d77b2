"""A student's transpose with a padded tile (written for this suite from issue 15's list): the padded
shape (TILE, TILE + 1) is not a compile-time constant for numba-cuda (TypingError on shared.array)."""

GPUVIZ_EXPECT = {"refused": ["is not a compile-time constant", 14]}

import numpy as np
from numba import cuda, float32

TILE = 16


@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, TILE + 1), float32)
    x, y = cuda.grid(2)
    tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    out[x, y] = tile[cuda.threadIdx.y, cuda.threadIdx.x]


a = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
out = np.zeros_like(a)
transpose[(2, 2), (TILE, TILE)](a, out)
