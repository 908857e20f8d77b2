"""The vector add launched on 4,096 threads twice: as 4 blocks of 1,024, then as 2 blocks of 2,048."""

import numpy as np
from numba import cuda


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


a = np.ones(4096, np.float32)
c = np.zeros_like(a)
vecadd[4, 1024](a, a, c)
try:
    vecadd[2, 2048](a, a, c)
except Exception as error:
    print("Exception occurred:", error)
else:
    print("[2, 2048] ran too")
