"""Tutorial "CUDA kernels in Python" part 1 (/work/shared/seeds/003_671338748adcfa87.txt): cudakernel0,
every thread adding 0.5 to every cell: correct with one thread, a race with many.
Harness: grid 1024x1024 -> 4x64."""

GPUVIZ_EXPECT = {"races": ["cudakernel0@1"], "errors": []}

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel0(array):
    for i in range(array.size):
        array[i] += 0.5


array = np.array([0, 1], np.float32)
print("Initial array:", array)
print("Kernel launch: cudakernel0[1, 1](array)")
cudakernel0[1, 1](array)
print("Updated array:", array)
np.testing.assert_array_equal(array, [0.5, 1.5])

array = np.array([0, 1], np.float32)
gridsize = 4
blocksize = 64
cudakernel0[gridsize, blocksize](array)
print("Updated array:", array)
# updates are lost: each cell gains between 0.5 and 0.5 * 256
assert 0.5 <= array[0] < 0.5 * gridsize * blocksize
