"""Kernels timed by bench/fast_speed.py: the compiled fast path against NumPy and the vector engine."""

from numba import cuda, float32

THREADS = 256
TILE = 16
MAX_ITER = 64


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def stencil_2d(src, dst):
    y, x = cuda.grid(2)
    if 0 < y < src.shape[0] - 1 and 0 < x < src.shape[1] - 1:
        dst[y, x] = (src[y, x] + src[y - 1, x] + src[y + 1, x] + src[y, x - 1] + src[y, x + 1]) * 0.2


@cuda.jit
def mandelbrot(image):
    y, x = cuda.grid(2)
    if y < image.shape[0] and x < image.shape[1]:
        cr = -2.0 + 3.0 * x / image.shape[1]
        ci = -1.5 + 3.0 * y / image.shape[0]
        zr = 0.0
        zi = 0.0
        n = 0
        while n < MAX_ITER and zr * zr + zi * zi < 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            n += 1
        image[y, x] = n


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
