"""numba-cuda's test suite, complex values in constant and local memory (tests/cudapy/test_constmem.py:
CONST3D, cuconst3d, test_const_array_3d; tests/cudapy/test_localmem.py: culocalcomplex,
test_local_array_complex)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda
from numba.cuda import complex64, complex128

CONST3D = (np.arange(5 * 5 * 5, dtype=np.complex64).reshape(5, 5, 5) + 1j) / 2j


def cuconst3d(A):
    C = cuda.const.array_like(CONST3D)
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z
    A[i, j, k] = C[i, j, k]


def culocalcomplex(A, B):
    C = cuda.local.array(100, dtype=complex128)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


sig = (complex64[:, :, :],)
jcuconst3d = cuda.jit(sig)(cuconst3d)
A = np.zeros_like(CONST3D, order="F")
jcuconst3d[1, (5, 5, 5)](A)
assert np.all(A == CONST3D)

sig = "void(complex128[:], complex128[:])"
jculocalcomplex = cuda.jit(sig)(culocalcomplex)
A = (np.arange(100, dtype="complex128") - 1) / 2j
B = np.zeros_like(A)
jculocalcomplex[1, 1](A, B)
assert np.all(A == B)
