"""cuda.grid(1): the same kernel launched on 1 block of 1 thread, then on 256 blocks of 256 threads."""

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel1(array):
    i = cuda.grid(1)
    array[i] += 0.5


small = np.zeros(256 * 256, np.float32)
cudakernel1[1, 1](small)  # 1 block of 1 thread
array = np.zeros(256 * 256, np.float32)  # the tutorial uses [1024, 1024] over 2**20 elements
cudakernel1[256, 256](array)
np.testing.assert_allclose(array, 0.5)
print("elements updated: by [1, 1]", np.count_nonzero(small), "; by [256, 256]", np.count_nonzero(array))
