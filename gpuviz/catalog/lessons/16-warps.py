"""Warps: a kernel that branches on each thread's lane (its place in its warp)."""

import numpy as np
from numba import cuda


@cuda.jit
def diverge(out):
    i = cuda.grid(1)
    if cuda.laneid % 2 == 0:
        out[i] = i * 2
    else:
        out[i] = -i


out = np.zeros(128, np.int64)
diverge[2, 64](out)
i = np.arange(128)
assert (out == np.where(i % 2 == 0, i * 2, -i)).all()
print("out[:4] =", out[:4])
