# expect: fail: writes(partials) == 16 does not hold
"""Sum 4,096 values with 16 blocks of 256 threads: each block sums its part in shared memory and writes
it to `partials`; the block that takes the last ticket adds the 16 parts."""

import numpy as np
from numba import cuda, float32, int32

THREADS = 256
BLOCKS = 16


@cuda.jit
def total_sum(values, partials, tickets, total):
    part = cuda.shared.array(THREADS, float32)
    last = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    part[t] = values[cuda.grid(1)]
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:  # the block's tree sum, as in a segmented reduction
        if t < step:
            part[t] += part[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(partials, cuda.blockIdx.x, part[0])  # onto a zero: the part, by an atomic
        ticket = cuda.atomic.add(tickets, 0, 1)
        last[0] = ticket == cuda.gridDim.x - 1
    cuda.syncthreads()
    if last[0] and t == 0:  # every other block has taken its ticket
        s = float32(0)
        for b in range(cuda.gridDim.x):
            s += cuda.atomic.add(partials, b, 0)
        total[0] = s


values = np.random.default_rng(0).integers(0, 4, BLOCKS * THREADS).astype(np.float32)
partials = np.zeros(BLOCKS, np.float32)
tickets = np.zeros(1, np.int32)
total = np.zeros(1, np.float32)
total_sum[BLOCKS, THREADS](values, partials, tickets, total)
assert total[0] == values.sum()
print("total:", total[0])
