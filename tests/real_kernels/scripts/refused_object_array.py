"""An object array as a kernel argument (written for this suite from issue 15's list)."""

GPUVIZ_EXPECT = {"refused": ["array of Python objects", 10]}

import numpy as np
from numba import cuda


@cuda.jit
def touch(a):
    i = cuda.grid(1)
    a[i] = i


touch[1, 2](np.array([1, "two"], dtype=object))
