"""Warp divergence (if/else on lane parity), then a warp-shuffle reduction without shared memory."""

import numpy as np
from numba import cuda

FULL_MASK = 0xFFFFFFFF


@cuda.jit
def diverge(out):
    i = cuda.grid(1)
    if cuda.laneid % 2 == 0:
        out[i] = i * 2
    else:
        out[i] = -i


@cuda.jit
def warp_sum(values, sums):
    i = cuda.grid(1)
    v = values[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        sums[i // 32] = v


out = np.zeros(128, np.int64)
diverge[2, 64](out)
i = np.arange(128)
assert (out == np.where(i % 2 == 0, i * 2, -i)).all()
values = np.arange(256, dtype=np.int64)
sums = np.zeros(8, np.int64)
warp_sum[2, 128](values, sums)
assert (sums == values.reshape(8, 32).sum(axis=1)).all()
print("warp sums:", sums)
