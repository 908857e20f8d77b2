"""The one-thread kernel on many threads, as the tutorial launches it: every thread loops over
a 2-element array and adds 0.5 to each element."""

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel0(array):
    for i in range(array.size):
        array[i] += 0.5


array = np.array([0, 1], np.float32)
print("Initial array:", array)
cudakernel0[1024, 1024](array)  # 1,048,576 threads
print("Updated array:", array)
