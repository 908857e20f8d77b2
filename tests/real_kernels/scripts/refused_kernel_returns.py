"""A kernel that returns its result (written for this suite from issue 15's list): numba-cuda refuses
with "CUDA kernel must have void return type"."""

GPUVIZ_EXPECT = {"refused": ["CUDA kernel must have void return type", 13]}

import numpy as np
from numba import cuda


@cuda.jit
def square(a):
    i = cuda.grid(1)
    return a[i] * a[i]


square[1, 8](np.arange(8.0))
