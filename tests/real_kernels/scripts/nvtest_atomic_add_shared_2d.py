"""numba-cuda's test suite, atomic add on a 2-D shared array whose shape and dtype are a device function's
arguments (numba_cuda/numba/cuda/tests/cudapy/test_atomics.py: atomic_binary_2dim_shared, atomic_add2,
atomic_add2_wrap, test_atomic_add2)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda
from numba.cuda import uint32


@cuda.jit(device=True)
def atomic_cast_none(num):
    return num


@cuda.jit(device=True)
def atomic_binary_2dim_shared(
    ary, op2, ary_dtype, ary_shape, binop_func, y_cast_func, neg_idx
):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(ary_shape, ary_dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    bin = (tx, y_cast_func(ty))
    if neg_idx:
        bin = (bin[0] % ary_shape[0], bin[1] % ary_shape[1])
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


def atomic_add2(ary):
    atomic_binary_2dim_shared(
        ary, 1, uint32, (4, 8), cuda.atomic.add, atomic_cast_none, False
    )


def atomic_add2_wrap(ary):
    atomic_binary_2dim_shared(
        ary, 1, uint32, (4, 8), cuda.atomic.add, atomic_cast_none, True
    )


ary = np.random.randint(0, 32, size=32).astype(np.uint32).reshape(4, 8)
ary_wrap = ary.copy()
orig = ary.copy()

cuda_atomic_add2 = cuda.jit("void(uint32[:,:])")(atomic_add2)
cuda_atomic_add2[1, (4, 8)](ary)

cuda_atomic_add2_wrap = cuda.jit("void(uint32[:,:])")(atomic_add2_wrap)
cuda_atomic_add2_wrap[1, (4, 8)](ary_wrap)

assert np.all(ary == orig + 1)
assert np.all(ary_wrap == orig + 1)
