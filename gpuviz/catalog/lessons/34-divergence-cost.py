"""Divergence cost: the same work split by lane parity (inside each warp) and by warp parity (whole warps).
The number of steps is an argument, as it would be for data read at run time."""

import numpy as np
from numba import cuda


@cuda.jit
def by_lane(out, steps):
    i = cuda.grid(1)
    acc = 0.0
    if cuda.laneid % 2 == 0:  # the two halves of every warp take different paths
        for k in range(steps):
            acc += k
    else:
        for k in range(steps):
            acc -= k
    out[i] = acc


@cuda.jit
def by_warp(out, steps):
    i = cuda.grid(1)
    acc = 0.0
    if (cuda.threadIdx.x // 32) % 2 == 0:  # whole warps take one path or the other
        for k in range(steps):
            acc += k
    else:
        for k in range(steps):
            acc -= k
    out[i] = acc


steps = 64
out = np.zeros(256, np.float64)
by_lane[2, 128](out, steps)
total = steps * (steps - 1) / 2
assert (out[0::2] == total).all() and (out[1::2] == -total).all()
by_warp[2, 128](out, steps)
warp = np.arange(256) % 128 // 32
assert (out == np.where(warp % 2 == 0, total, -total)).all()
print("done")
