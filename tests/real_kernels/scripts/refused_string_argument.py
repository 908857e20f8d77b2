"""A kernel given a string argument (written for this suite from issue 15's list): numba-cuda cannot
type it."""

GPUVIZ_EXPECT = {"refused": ["argument 'mode' is a str", 11]}

import numpy as np
from numba import cuda


@cuda.jit
def scale(a, mode):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * 2


scale[1, 8](np.arange(8.0), "double")
