"""Divergence cost: the same work split by lane parity (inside each warp) and by warp parity (whole warps)."""

import numpy as np
from numba import cuda

STEPS = 64


@cuda.jit
def by_lane(out):
    i = cuda.grid(1)
    acc = 0.0
    if cuda.laneid % 2 == 0:  # the two halves of every warp take different paths
        for k in range(STEPS):
            acc += k
    else:
        for k in range(STEPS):
            acc -= k
    out[i] = acc


@cuda.jit
def by_warp(out):
    i = cuda.grid(1)
    acc = 0.0
    if (cuda.threadIdx.x // 32) % 2 == 0:  # whole warps take one path or the other
        for k in range(STEPS):
            acc += k
    else:
        for k in range(STEPS):
            acc -= k
    out[i] = acc


out = np.zeros(256, np.float64)
by_lane[2, 128](out)
total = STEPS * (STEPS - 1) / 2
assert (out[0::2] == total).all() and (out[1::2] == -total).all()
by_warp[2, 128](out)
warp = np.arange(256) % 128 // 32
assert (out == np.where(warp % 2 == 0, total, -total)).all()
print("done")
