"""Kernels timed by bench/sim_speed.py, on gpuviz's simulator and on numba's CUDA simulator alike."""

from numba import cuda, float32

THREADS = 256


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def tree_reduction(values, sums):
    partial = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    partial[t] = values[cuda.grid(1)]
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = partial[0]


TILE = 16


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = 0.0
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
