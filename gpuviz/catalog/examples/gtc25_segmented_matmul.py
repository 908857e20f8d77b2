"""The GTC'25 article's Python kernel ("1,001 ways to write CUDA kernels in Python"): the segmented
reduction as a matrix-vector product. Each block takes `chunk` segments of `k` values as a chunk x k
matrix A in shared memory, and one call of nvmath-python's device matmul (cuBLASDx) multiplies it by
a vector of k ones: C = A @ ones holds the block's segment sums.

The article shows the kernel and leaves out its helpers; they are written out here. Two changes, and
why: nvmath-python 1.0 spells the article's `MM(1., a, b, 0., c)` as `MM.execute(...)` and links
cuBLASDx itself (releases before 0.7 built `MM = matmul(...)` and needed `@cuda.jit(link=MM.files)`);
and the helpers take the block's first row instead of the slice `in_arr[bid*chunk:(bid+1)*chunk, :]`,
so every load is of `in_arr` itself, which the trace records. On a GPU this needs nvmath-python's
device extra (`pip install gpuviz[nvmath]`); gpuviz's simulator runs its own model of the call.
"""

import numpy as np
from numba import cuda, float32
from nvmath.device import Matmul

k = 4  # values in a segment: the article's segments are 1-4, 5-8, 9-12, ...
chunk = 32  # segments a block reduces: A is chunk x k, B (the ones) k x 1, C chunk x 1
threads = 64
n_segments = 3 * chunk
dtype = float32

MM = Matmul(size=(chunk, 1, k), precision=np.float32, data_type="real",
            arrangement=("col_major", "col_major", "col_major"), block_size=threads, execution="Block")


@cuda.jit(device=True)
def load_to_shared_2d(in_arr, first_row, smem):
    """Rows first_row .. first_row + chunk - 1 of in_arr into smem as column-major A: smem[j, i] = A[i, j].
    Neighbouring threads read neighbouring values of in_arr (one segment's values lie side by side)."""
    for e in range(cuda.threadIdx.x, chunk * k, cuda.blockDim.x):
        i = e // k
        j = e % k
        smem[j, i] = in_arr[first_row + i, j]


@cuda.jit(device=True)
def set_smem(smem, size, value):
    for e in range(cuda.threadIdx.x, size, cuda.blockDim.x):
        smem[e] = value


@cuda.jit(device=True)
def store_from_shared(smem, out_arr, first, size):
    for e in range(cuda.threadIdx.x, size, cuda.blockDim.x):
        out_arr[first + e] = smem[e]


@cuda.jit
def segmented_reduce_kernel(in_arr, out_arr):
    smem_a = cuda.shared.array(shape=(k, chunk), dtype=dtype)
    smem_b = cuda.shared.array(shape=k, dtype=dtype)
    smem_c = cuda.shared.array(shape=chunk, dtype=dtype)
    bid = cuda.blockIdx.x
    first = bid * chunk  # the article: a = in_arr[bid*chunk:(bid+1)*chunk, :]
    load_to_shared_2d(in_arr, first, smem_a)
    set_smem(smem_b, k, 1.)
    cuda.syncthreads()
    MM.execute(1., smem_a, smem_b, 0., smem_c)
    cuda.syncthreads()
    store_from_shared(smem_c, out_arr, first, chunk)


in_arr = np.arange(1, n_segments * k + 1, dtype=np.float32).reshape(n_segments, k)
out_arr = np.zeros(n_segments, dtype=np.float32)
segmented_reduce_kernel[n_segments // chunk, threads](in_arr, out_arr)
np.testing.assert_allclose(out_arr, in_arr.sum(axis=1), rtol=1e-6)
print("segment sums:", out_arr[:3], "...", out_arr[-1])
