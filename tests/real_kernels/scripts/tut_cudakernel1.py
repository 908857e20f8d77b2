"""Tutorial "CUDA kernels in Python" part 1 (/work/shared/seeds/003_671338748adcfa87.txt): cudakernel1,
one thread per cell. Harness: 1024 * 1024 -> 64 * 64 elements."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel1(array):
    thread_position = cuda.grid(1)
    array[thread_position] += 0.5


array = np.array([0, 1], np.float32)
cudakernel1[1, 2](array)
print("Updated array:", array)
np.testing.assert_array_equal(array, [0.5, 1.5])

array = np.array([0, 1], np.float32)
cudakernel1[1, 1](array)
np.testing.assert_array_equal(array, [0.5, 1.0])

array = np.zeros(64 * 64, np.float32)
cudakernel1[64, 64](array)
print("The result is correct:", np.all(array == np.zeros(64 * 64, np.float32) + 0.5))
assert np.all(array == 0.5)
