"""Matrix multiply through shared-memory tiles: each block loads tiles of A and B, syncs, multiplies."""

import numpy as np
from numba import cuda, float32

TILE = 8


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)  # x: row of C, y: column of C
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[tx, ty] = 0.0
        sB[tx, ty] = 0.0
        if x < A.shape[0] and t * TILE + ty < A.shape[1]:
            sA[tx, ty] = A[x, t * TILE + ty]
        if y < B.shape[1] and t * TILE + tx < B.shape[0]:
            sB[tx, ty] = B[t * TILE + tx, y]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[tx, k] * sB[k, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = acc


rng = np.random.default_rng(1)
A = rng.random((20, 12), dtype=np.float32)
B = rng.random((12, 18), dtype=np.float32)
C = np.zeros((20, 18), dtype=np.float32)
grid = ((A.shape[0] + TILE - 1) // TILE, (B.shape[1] + TILE - 1) // TILE)
matmul_tiled[grid, (TILE, TILE)](A, B, C)
np.testing.assert_allclose(C, A @ B, rtol=1e-5)
print("tiled matmul ok:", C.shape)
