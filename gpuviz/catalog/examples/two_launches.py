"""Two launches in one script: square every element, then add an offset. Each gets its own trace."""

import numpy as np
from numba import cuda


@cuda.jit
def square(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * x[i]


@cuda.jit
def add_offset(x, offset):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += offset


x = np.arange(100, dtype=np.int64)
square[1, 128](x)
add_offset[4, 32](x, 7)
assert (x == np.arange(100) ** 2 + 7).all()
print("two launches ok:", x[:5])
