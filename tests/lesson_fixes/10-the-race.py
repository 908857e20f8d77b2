"""The kernel of lesson 1 on many threads: every thread loops over a 2-element array
and adds 0.5 to each element."""

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel0(array):
    for i in range(array.size):
        cuda.atomic.add(array, i, 0.5)


array = np.zeros(2, np.float32)
cudakernel0[64, 1024](array)  # 65,536 threads; the tutorial's [1024, 1024] runs on a GPU
print("array =", array)
