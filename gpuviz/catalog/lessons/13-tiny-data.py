"""Adding two arrays of 1,000 floats on the GPU, passed as NumPy arrays, twice; and the same sum with
NumPy on the CPU."""

import numpy as np
from numba import cuda

N = 1000


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


rng = np.random.default_rng(0)
a = rng.random(N, dtype=np.float32)
b = rng.random(N, dtype=np.float32)
out = np.zeros_like(a)
for _ in range(2):  # the second launch finds the kernel compiled
    add[(N + 255) // 256, 256](a, b, out)
np.testing.assert_array_equal(out, a + b)  # the CPU's sum, with NumPy
print("the GPU's sum matches NumPy's for", N, "values")
