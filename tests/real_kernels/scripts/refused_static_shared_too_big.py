"""Static shared memory above 48 KiB per block (written for this suite from issue 15's list): ptxas
refuses ("uses too much shared data")."""

GPUVIZ_EXPECT = {"refused": ["at most 49,152 bytes (48 KiB)", 12]}

import numpy as np
from numba import cuda, float64


@cuda.jit
def stage(a):
    buffer = cuda.shared.array(8192, float64)  # 64 KiB
    buffer[cuda.threadIdx.x] = a[cuda.threadIdx.x]
    cuda.syncthreads()
    a[cuda.threadIdx.x] = buffer[cuda.threadIdx.x] + 1


stage[1, 32](np.zeros(32))
