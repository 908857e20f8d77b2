"""A warp-level sum: lanes pass partial sums down with cuda.shfl_down_sync, no shared memory."""

import numpy as np
from numba import cuda

FULL_MASK = 0xFFFFFFFF


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


values = np.arange(256, dtype=np.int64)
sums = np.zeros(8, dtype=np.int64)
warp_sum[2, 128](values, sums)
assert (sums == values.reshape(8, 32).sum(axis=1)).all()
print("warp sums:", sums)
