"""A race: every thread adds 0.5 to the same two cells without atomics, so updates get lost.

On a GPU (and under gpuviz's default schedule) the result is far below threads * 0.5;
under `--schedule sequential` each thread finishes before the next starts and none is lost.
"""

import numpy as np
from numba import cuda


@cuda.jit
def cudakernel0(array):
    for i in range(array.size):
        array[i] += 0.5


array = np.zeros(2, dtype=np.float32)
cudakernel0[64, 256](array)
print("threads:", 64 * 256, "expected without a race:", 64 * 256 * 0.5, "got:", array)
