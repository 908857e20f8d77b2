"""numba-cuda's test suite, a warp reduction with syncwarps of shrinking masks
(numba_cuda/numba/cuda/tests/cudapy/test_sync.py: coop_syncwarp, test_coop_syncwarp)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda, int32

def coop_syncwarp(res):
    sm = cuda.shared.array(32, int32)
    i = cuda.grid(1)

    sm[i] = i
    cuda.syncwarp()

    if i < 16:
        sm[i] = sm[i] + sm[i + 16]
        cuda.syncwarp(0xFFFF)

    if i < 8:
        sm[i] = sm[i] + sm[i + 8]
        cuda.syncwarp(0xFF)

    if i < 4:
        sm[i] = sm[i] + sm[i + 4]
        cuda.syncwarp(0xF)

    if i < 2:
        sm[i] = sm[i] + sm[i + 2]
        cuda.syncwarp(0x3)

    if i == 0:
        res[0] = sm[0] + sm[1]

compiled = cuda.jit("void(int32[::1])")(coop_syncwarp)
res = np.zeros(1, dtype=np.int32)
compiled[1, 32](res)
np.testing.assert_equal(496, res[0])
