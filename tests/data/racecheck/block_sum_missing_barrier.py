"""A block sum whose tree steps have no barrier. Captured under compute-sanitizer's racecheck on the lent
H200 (racecheck_*.txt beside this file, from a copy named lineinfo.py) and run by gpuviz on the simulator
(tests/test_sanitizer_format.py); keep the kernel on the same lines."""

import numpy as np
from numba import cuda, float32

THREADS = 64


@cuda.jit(lineinfo=True)
def block_sum(values, sums):
    partial = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    partial[t] = values[cuda.grid(1)]
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = partial[0]


values = np.ones(2 * THREADS, np.float32)
sums = np.zeros(2, np.float32)
block_sum[2, THREADS](values, sums)
print("sums:", sums)
