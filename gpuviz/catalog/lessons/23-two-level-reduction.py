"""A block sum in two levels: each warp sums its 32 values with shuffles, then one warp sums the warps' results."""

import numpy as np
from numba import cuda, float32

THREADS = 256
WARPS = THREADS // 32
FULL_MASK = 0xFFFFFFFF


@cuda.jit(device=True)
def warp_sum(v):
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    return v


@cuda.jit
def block_sum(values, sums):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    v = warp_sum(values[cuda.grid(1)])  # level 1: within each warp, no shared memory, no barrier
    if cuda.laneid == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:  # level 2: warp 0 sums the 8 warps' results
        v = warp_sum(warp_sums[t] if t < WARPS else float32(0))
        if t == 0:
            sums[cuda.blockIdx.x] = v


values = np.ones(4 * THREADS, np.float32)
sums = np.zeros(4, np.float32)
block_sum[4, THREADS](values, sums)
assert (sums == THREADS).all()
print("block sums:", sums)
