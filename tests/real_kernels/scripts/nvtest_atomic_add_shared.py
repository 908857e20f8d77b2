"""numba-cuda's test suite, atomic add in shared memory with cuda.atomic.add passed to a device function
(numba_cuda/numba/cuda/tests/cudapy/test_atomics.py: atomic_binary_1dim_shared, atomic_add, test_atomic_add)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda
from numba.cuda import uint32


@cuda.jit(device=True)
def atomic_cast_none(num):
    return num


@cuda.jit(device=True)
def atomic_binary_1dim_shared(
    ary,
    idx,
    op2,
    ary_dtype,
    ary_nelements,
    binop_func,
    cast_func,
    initializer,
    neg_idx,
):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(ary_nelements, ary_dtype)
    sm[tid] = initializer
    cuda.syncthreads()
    bin = cast_func(idx[tid] % ary_nelements)
    if neg_idx:
        bin = bin % ary_nelements
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


def atomic_add(ary):
    atomic_binary_1dim_shared(
        ary, ary, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False
    )


ary = np.random.randint(0, 32, size=32).astype(np.uint32)
orig = ary.copy()

cuda_atomic_add = cuda.jit("void(uint32[:])")(atomic_add)
cuda_atomic_add[1, 32](ary)

gold = np.zeros(32, dtype=np.uint32)
for i in range(orig.size):
    gold[orig[i]] += 1

assert np.all(ary == gold)
