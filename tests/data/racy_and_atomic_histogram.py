"""The racy histogram (launch 0) and the atomic one (launch 1) in one run: two launches to compare."""

import numpy as np
from numba import cuda


@cuda.jit
def histogram_racy(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1


@cuda.jit
def histogram_atomic(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)


data = np.random.default_rng(0).integers(0, 1000, 4096).astype(np.int32)
expected = np.bincount(data % 16, minlength=16)
racy = np.zeros(16, np.int32)
histogram_racy[16, 256](data, racy)
fixed = np.zeros(16, np.int32)
histogram_atomic[16, 256](data, fixed)
assert (fixed == expected).all()
print("racy:", racy.sum(), "counted of", data.size, "; atomic:", fixed.sum())
