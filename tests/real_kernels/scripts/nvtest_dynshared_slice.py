"""numba-cuda's test suite, slices of dynamic shared memory
(tests/cudapy/test_sm.py: test_dynshared_slice_write, _test_dynshared_slice)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda, int32


@cuda.jit
def slice_write(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[0:1]
    sm2 = dynsmem[1:2]

    sm1[0] = 1
    sm2[0] = 2
    x[0] = dynsmem[0]
    x[1] = dynsmem[1]


arr = np.zeros(2, dtype=np.int32)
expected = np.array([1, 2], dtype=np.int32)
nshared = arr.size * arr.dtype.itemsize
slice_write[1, 1, 0, nshared](arr)
np.testing.assert_array_equal(expected, arr)
