"""One thread loops over the whole array, adding 0.5: the launch syntax kernel[blocks, threads]."""

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel0(array):
    for i in range(array.size):
        array[i] += 0.5


array = np.zeros(1024, np.float32)
cudakernel0[1, 1](array)  # 1 block of 1 thread
np.testing.assert_allclose(array, np.full(1024, 0.5))
print("array[:4] =", array[:4])
