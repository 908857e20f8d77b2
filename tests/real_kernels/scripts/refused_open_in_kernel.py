"""File I/O inside a kernel (written for this suite from issue 15's list): it created files on the
simulator; numba-cuda cannot compile it."""

GPUVIZ_EXPECT = {"refused": ["open() is not supported", 13]}

import numpy as np
from numba import cuda


@cuda.jit
def log_values(a):
    i = cuda.grid(1)
    f = open("values.txt", "a")
    f.write(a[i])


log_values[1, 4](np.arange(4.0))
