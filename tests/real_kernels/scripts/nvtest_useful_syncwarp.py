"""numba-cuda's test suite, syncwarp ordering lane 0's write before the warp reads it
(tests/cudapy/test_warp_ops.py: useful_syncwarp, test_useful_syncwarp).
The syncwarp orders lane 0's first write before every lane's read (no race there); but lane 0 then
stores ary[0] again while the other lanes load it, with nothing ordering the two: under independent
thread scheduling that is a data race by the CUDA memory model (harmless here: it stores the 42 it read)."""

GPUVIZ_EXPECT = {"races": ["useful_syncwarp@0"], "errors": []}

import numpy as np
from numba import cuda


def useful_syncwarp(ary):
    i = cuda.grid(1)
    if i == 0:
        ary[0] = 42
    cuda.syncwarp(0xFFFFFFFF)
    ary[i] = ary[0]


compiled = cuda.jit("void(int32[:])")(useful_syncwarp)
nelem = 32
ary = np.empty(nelem, dtype=np.int32)
compiled[1, nelem](ary)
assert np.all(ary == 42)
