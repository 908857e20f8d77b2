"""Transpose of a 64x96 matrix: directly, then through a 32x32 tile in shared memory."""

import numpy as np
from numba import cuda, float32

TILE = 32
PADDED = TILE  # the tile's row length; a named constant: numba needs shared-array shapes when it compiles


@cuda.jit
def transpose_naive(a, b):
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        b[x, y] = a[y, x]


@cuda.jit
def transpose_tiled(a, b):
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if y < a.shape[0] and x < a.shape[1]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    if y < b.shape[0] and x < b.shape[1]:
        b[y, x] = tile[tx, ty]


a = np.arange(64 * 96, dtype=np.float32).reshape(64, 96)
grid = (96 // TILE, 64 // TILE)
b = np.zeros((96, 64), np.float32)
transpose_naive[grid, (TILE, TILE)](a, b)
np.testing.assert_array_equal(b, a.T)
b_tiled = np.zeros((96, 64), np.float32)
transpose_tiled[grid, (TILE, TILE)](a, b_tiled)
np.testing.assert_array_equal(b_tiled, a.T)
print("both transposes match a.T")
