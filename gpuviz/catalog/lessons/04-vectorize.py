"""Add two arrays with numba's @vectorize: a function of two numbers, called on 5,000 of each."""

import numpy as np
from numba import vectorize


@vectorize(["float32(float32, float32)"], target="cuda")
def add_ufunc(x, y):
    return x + y


n = 5_000
a = np.random.default_rng(0).random(n).astype(np.float32)
b = np.random.default_rng(1).random(n).astype(np.float32)
c = add_ufunc(a, b)
np.testing.assert_allclose(c, a + b)
print(f"{c.size:,} sums of type {c.dtype}")
