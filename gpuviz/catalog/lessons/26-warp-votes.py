"""Count the values above a threshold and find the largest: 2,048 values, 8 blocks of 256 threads.
Each warp counts its own values first; the maximum is kept with compare-and-swap."""

import numpy as np
from numba import cuda

FULL_MASK = 0xFFFFFFFF


@cuda.jit
def count_and_max(values, threshold, count, best, tries):
    i = cuda.grid(1)
    v = values[i]
    above = v > threshold
    votes = cuda.ballot_sync(FULL_MASK, above)  # bit k: lane k's value is above
    if cuda.laneid == 0:
        cuda.atomic.add(count, 0, cuda.popc(votes))  # check: count-add
    if not cuda.any_sync(FULL_MASK, above):
        return  # no value of this warp is above: the whole warp is done
    if above:
        n = 0
        old = 0  # a guess: a failed swap returns what is there
        while old < v:
            n += 1
            seen = cuda.atomic.compare_and_swap(best, old, v)  # check: swap
            if seen == old:
                break
            old = seen
        tries[i] = n


values = np.random.default_rng(0).integers(0, 1_000_000, 2048).astype(np.int32)
threshold = 900_000
count = np.zeros(1, np.int32)
best = np.zeros(1, np.int32)
tries = np.zeros(2048, np.int32)
count_and_max[8, 256](values, threshold, count, best, tries)
assert count[0] == (values > threshold).sum()
assert best[0] == values.max()
print(count[0], "values above", threshold, "; the largest:", best[0])
