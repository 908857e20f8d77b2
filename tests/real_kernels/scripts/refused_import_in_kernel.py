"""An import inside a kernel (written for this suite from issue 15's list)."""

GPUVIZ_EXPECT = {"refused": ["import statements are not supported", 12]}

import numpy as np
from numba import cuda


@cuda.jit
def roots(a):
    i = cuda.grid(1)
    import math

    a[i] = math.sqrt(a[i])


roots[1, 4](np.arange(4.0))
