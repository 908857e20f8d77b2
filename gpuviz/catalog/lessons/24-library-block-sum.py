"""One segmented sum, three ways: a tree in shared memory written by hand (the C++ port), CCCL's block
reduction (CUB's BlockReduce), and nvmath-python's device matmul against a vector of ones (the GTC'25
article's Python kernel). Each way is one launch on the same 4 segments of 64 values."""

import cuda.cccl.cooperative.experimental as coop
import numpy as np
from numba import cuda, float32
from nvmath.device import Matmul

THREADS = 64
SEGMENT = 64  # values in a segment
SEGMENTS = 4
CHUNK = 2  # segments one block of the matmul kernel sums: A is CHUNK x SEGMENT

block_sum = coop.block.sum(float32, THREADS)
MM = Matmul(
    size=(CHUNK, 1, SEGMENT),
    precision=np.float32,
    data_type="real",
    arrangement=("col_major", "col_major", "col_major"),
    block_size=THREADS,
    execution="Block",
)


@cuda.jit
def tree_sum(values, sums):
    partial = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    partial[t] = values[cuda.blockIdx.x * SEGMENT + t]
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = partial[0]


@cuda.jit(link=block_sum.files)
def library_sum(values, sums, got):
    t = cuda.threadIdx.x
    total = block_sum(values[cuda.blockIdx.x * SEGMENT + t])
    got[cuda.grid(1)] = total  # what each thread holds after the call
    if t == 0:
        sums[cuda.blockIdx.x] = total


@cuda.jit
def matmul_sum(values, sums):
    a = cuda.shared.array(shape=(SEGMENT, CHUNK), dtype=float32)  # column-major A: a[j, i] = A[i, j]
    ones = cuda.shared.array(shape=SEGMENT, dtype=float32)
    c = cuda.shared.array(shape=CHUNK, dtype=float32)
    first = cuda.blockIdx.x * CHUNK
    for e in range(cuda.threadIdx.x, CHUNK * SEGMENT, THREADS):
        a[e % SEGMENT, e // SEGMENT] = values[first * SEGMENT + e]
    for e in range(cuda.threadIdx.x, SEGMENT, THREADS):
        ones[e] = 1.0
    cuda.syncthreads()
    MM.execute(1.0, a, ones, 0.0, c)
    cuda.syncthreads()
    if cuda.threadIdx.x < CHUNK:
        sums[first + cuda.threadIdx.x] = c[cuda.threadIdx.x]


values = np.arange(1, SEGMENTS * SEGMENT + 1, dtype=np.float32)
expected = values.reshape(SEGMENTS, SEGMENT).sum(axis=1)

sums = np.zeros(SEGMENTS, np.float32)
tree_sum[SEGMENTS, THREADS](values, sums)
np.testing.assert_allclose(sums, expected)

sums = np.zeros(SEGMENTS, np.float32)
got = np.full(SEGMENTS * THREADS, -1, np.float32)
library_sum[SEGMENTS, THREADS](values, sums, got)
np.testing.assert_allclose(sums, expected)

sums = np.zeros(SEGMENTS, np.float32)
matmul_sum[SEGMENTS // CHUNK, THREADS](values, sums)
np.testing.assert_allclose(sums, expected)
print("segment sums:", sums)
