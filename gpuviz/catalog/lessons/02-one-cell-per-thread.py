"""One cell per thread with cuda.grid(1): each thread updates only its own element."""

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel1(array):
    i = cuda.grid(1)
    array[i] += 0.5


array = np.zeros(256 * 256, np.float32)  # the tutorial uses [1024, 1024] over 2**20 elements
cudakernel1[256, 256](array)
np.testing.assert_allclose(array, 0.5)
print("every element is", array[0])
