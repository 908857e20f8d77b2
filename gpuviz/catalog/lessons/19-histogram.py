"""Histogram: 4,096 values into 16 bins, one thread per value,
on 16 blocks of 256 threads."""

import numpy as np
from numba import cuda


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1


data = np.random.default_rng(0).integers(0, 1000, 4096).astype(np.int32)
expected = np.bincount(data % 16, minlength=16)
bins = np.zeros(16, np.int32)
histogram[16, 256](data, bins)
print("counted", bins.sum(), "of", data.size, "values; bins match NumPy's bincount:", (bins == expected).all())
