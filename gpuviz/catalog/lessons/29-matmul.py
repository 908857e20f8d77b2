"""2-D grid: matrix multiply with one thread per output element,
then through shared-memory tiles."""

import numpy as np
from numba import cuda, float32

TILE = 8


@cuda.jit
def matmul(A, B, C):
    row, col = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[tx, ty] = A[x, t * TILE + ty] if x < A.shape[0] and t * TILE + ty < A.shape[1] else float32(0)
        sB[tx, ty] = B[t * TILE + tx, y] if y < B.shape[1] and t * TILE + tx < B.shape[0] else float32(0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[tx, k] * sB[k, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = acc


rng = np.random.default_rng(3)
A = rng.random((24, 16), dtype=np.float32)
B = rng.random((16, 24), dtype=np.float32)
grid = ((24 + TILE - 1) // TILE, (24 + TILE - 1) // TILE)
C = np.zeros((24, 24), np.float32)
matmul[grid, (TILE, TILE)](A, B, C)
np.testing.assert_allclose(C, A @ B, rtol=1e-5)
C_tiled = np.zeros((24, 24), np.float32)
matmul_tiled[grid, (TILE, TILE)](A, B, C_tiled)
np.testing.assert_allclose(C_tiled, A @ B, rtol=1e-5)
print("both versions match A @ B")
