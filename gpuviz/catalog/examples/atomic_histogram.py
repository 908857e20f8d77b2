"""A histogram: many threads add to the same bins, so each increment is a cuda.atomic.add."""

import numpy as np
from numba import cuda


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)


data = np.random.default_rng(0).integers(0, 1000, size=4096).astype(np.int32)
bins = np.zeros(16, dtype=np.int32)
histogram[16, 256](data, bins)
assert (bins == np.bincount(data % 16, minlength=16)).all()
print("histogram:", bins)
