"""SMs, blocks per SM and waves: 64 blocks of 1,024 threads
on a device of 8 SMs."""

import numpy as np
from numba import cuda, float32


@cuda.jit
def scale(a, out):
    i = cuda.grid(1)
    if i < a.size:
        acc = float32(0)
        for k in range(4):  # four reads of a[i] (a GPU's compiler may merge them into one)
            acc += float32(k + 1) * a[i]
        out[i] = acc


a = np.arange(64 * 1024, dtype=np.float32)
out = np.zeros_like(a)
scale[64, 1024](a, out)
np.testing.assert_array_equal(out, 10 * a)
print("64 blocks ran on 8 SMs")
