"""cuda.grid(1): the same kernel launched on 1 block of 1 thread, then on 1,024 blocks of 1,024 threads."""

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel1(array):
    i = cuda.grid(1)
    array[i] += 0.5


small = np.zeros(1024 * 1024, np.float32)
cudakernel1[1, 1](small)  # 1 block of 1 thread
array = np.zeros(1024 * 1024, np.float32)  # the tutorial's launch: [1024, 1024] over 2**20 elements
cudakernel1[1024, 1024](array)
np.testing.assert_allclose(array, 0.5)
print("elements updated: by [1, 1]", np.count_nonzero(small), "; by [1024, 1024]", np.count_nonzero(array))
