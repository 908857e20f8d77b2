"""numba-cuda's test suite, bit intrinsics with explicit signatures (tests/cudapy/test_intrinsics.py:
simple_popc, simple_brev, simple_clz, simple_ffs and their tests at 8, 16, 32 and 64 bits). The
operand is a Python int: the signature says how wide it is (clz of a uint32 counts 32 bits)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda


def simple_popc(ary, c):
    ary[0] = cuda.popc(c)


def simple_brev(ary, c):
    ary[0] = cuda.brev(c)


def simple_clz(ary, c):
    ary[0] = cuda.clz(c)


def simple_ffs(ary, c):
    ary[0] = cuda.ffs(c)


def check(signature, kernel, dtype, operand, expected):
    compiled = cuda.jit(signature)(kernel)
    ary = np.zeros(1, dtype=dtype)
    compiled[1, 1](ary, operand)
    assert ary[0] == expected, (signature, kernel.__name__, hex(int(operand)), ary[0], expected)


check("void(int32[:], uint8)", simple_popc, np.int32, np.uint8(0xFF), 8)
check("void(int32[:], uint16)", simple_popc, np.int32, np.uint16(0xFFFF), 16)
check("void(int32[:], uint32)", simple_popc, np.int32, np.uint32(0xFFFFFFFF), 32)
check("void(int32[:], uint64)", simple_popc, np.int32, np.uint64(0xFFFFFFFFFFFFFFFF), 64)
check("void(uint32[:], uint32)", simple_brev, np.uint32, 0x000030F0, 0x0F0C0000)
check("void(uint64[:], uint64)", simple_brev, np.uint64, 0x000030F0000030F0, 0x0F0C00000F0C0000)
check("void(int32[:], int32)", simple_clz, np.int32, 0x00100000, 11)
check("void(int32[:], uint32)", simple_clz, np.int32, 0x00100000, 11)
check("void(int32[:], int32)", simple_clz, np.int32, 0xFFFFFFFF, 0)
check("void(int32[:], int32)", simple_clz, np.int32, 0x0, 32)
check("void(int32[:], int64)", simple_clz, np.int32, 0x000000000010000, 47)
check("void(int32[:], int32)", simple_ffs, np.int32, 0x00100000, 21)
check("void(int32[:], int32)", simple_ffs, np.int32, 0x80000000, 32)
check("void(int32[:], uint32)", simple_ffs, np.int32, 0x00100000, 21)
check("void(int32[:], uint32)", simple_ffs, np.int32, 0x80000000, 32)
check("void(int32[:], int32)", simple_ffs, np.int32, 0xFFFFFFFF, 1)
check("void(int32[:], int32)", simple_ffs, np.int32, 0x0, 0)
check("void(int32[:], int64)", simple_ffs, np.int32, 0x000000000010000, 17)
check("void(int32[:], int64)", simple_ffs, np.int32, 0x100000000, 33)
