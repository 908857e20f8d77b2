"""numba-cuda's test suite, cuda.syncthreads_count (tests/cudapy/test_sync.py: use_syncthreads_count)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda


def use_syncthreads_count(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_count(ary_in[i])


compiled = cuda.jit(use_syncthreads_count)
ary_in = np.ones(72, dtype=np.int32)
ary_out = np.zeros(72, dtype=np.int32)
ary_in[31] = 0
ary_in[42] = 0
compiled[1, 72](ary_in, ary_out)
assert np.all(ary_out == 70)
