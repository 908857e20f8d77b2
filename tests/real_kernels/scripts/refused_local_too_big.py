"""A 40 MB local array per thread (written for this suite from issue 15's list): more local memory than
a thread may have."""

GPUVIZ_EXPECT = {"refused": ["bytes (512 KiB) of local memory", 12]}

import numpy as np
from numba import cuda, float32


@cuda.jit
def scratch(a):
    tmp = cuda.local.array(10_000_000, float32)
    tmp[0] = a[0]
    a[0] = tmp[0] * 2


scratch[1, 1](np.ones(1, np.float32))
