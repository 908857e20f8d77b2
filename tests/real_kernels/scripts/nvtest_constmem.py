"""numba-cuda's test suite, constant memory (tests/cudapy/test_constmem.py: cuconst, cuconst2d)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda

CONST1D = np.arange(10, dtype=np.float64) / 2.0
CONST2D = np.asfortranarray(np.arange(100, dtype=np.int32).reshape(10, 10))


def cuconst(A):
    C = cuda.const.array_like(CONST1D)
    i = cuda.grid(1)

    A[i] = C[i] + 1.0


def cuconst2d(A):
    C = cuda.const.array_like(CONST2D)
    i, j = cuda.grid(2)
    A[i, j] = C[i, j]


jcuconst = cuda.jit("void(float64[:])")(cuconst)
A = np.zeros_like(CONST1D)
jcuconst[2, 5](A)
assert np.all(A == CONST1D + 1)

jcuconst2d = cuda.jit("void(int32[:,:])")(cuconst2d)
A = np.zeros_like(CONST2D, order="C")
jcuconst2d[(2, 2), (5, 5)](A)
assert np.all(A == CONST2D)
