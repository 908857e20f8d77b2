"""numba-cuda's test suite, a local array per thread (tests/cudapy/test_localmem.py: culocal, test_local_array)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda, int32


def culocal(A, B):
    C = cuda.local.array(1000, dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


sig = (int32[:], int32[:])
jculocal = cuda.jit(sig)(culocal)
A = np.arange(1000, dtype="int32")
B = np.zeros_like(A)
jculocal[1, 1](A, B)
assert np.all(A == B)
