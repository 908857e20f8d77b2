"""The first eight power sums of a signal (x, x^2, ..., x^8), each thread adding up its share in
eight running totals; blocks of 48 threads."""

import numpy as np
from numba import cuda

THREADS = 48
BLOCKS = 8


@cuda.jit
def power_sums(x, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = 0.0
    for i in range(start, x.size, stride):
        v = x[i]
        p = v
        s1 += p
        p *= v
        s2 += p
        p *= v
        s3 += p
        p *= v
        s4 += p
        p *= v
        s5 += p
        p *= v
        s6 += p
        p *= v
        s7 += p
        p *= v
        s8 += p
    out[start, 0] = s1
    out[start, 1] = s2
    out[start, 2] = s3
    out[start, 3] = s4
    out[start, 4] = s5
    out[start, 5] = s6
    out[start, 6] = s7
    out[start, 7] = s8


x = np.linspace(0.0, 1.0, 4 * BLOCKS * THREADS)
out = np.zeros((BLOCKS * THREADS, 8))
power_sums[BLOCKS, THREADS](x, out)
expected = [np.sum(x**k) for k in range(1, 9)]
np.testing.assert_allclose(out.sum(axis=0), expected, rtol=1e-12)
print("power sums:", np.round(out.sum(axis=0), 3))
