"""Grid-stride loop: a fixed number of threads covers an array of any size."""

import numpy as np
from numba import cuda


@cuda.jit
def double_all(a):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.size, stride):
        a[i] *= 2


a = np.arange(10_000, dtype=np.float64)
double_all[8, 128](a)  # 1,024 threads for 10,000 elements
np.testing.assert_allclose(a, np.arange(10_000) * 2)
print("doubled", a.size, "elements with", 8 * 128, "threads")
