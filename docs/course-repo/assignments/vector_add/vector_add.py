"""Assignment 1: add two vectors, one element per thread."""

import numpy as np
from numba import cuda


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


if __name__ == "__main__":
    a = np.arange(1000, dtype=np.float32)
    out = np.zeros_like(a)
    add[4, 256](a, a, out)
    print(out[:4])
