"""A kernel given a Python list (written for this suite from issue 15's list): numba-cuda refuses
reflected lists as kernel arguments."""

GPUVIZ_EXPECT = {"refused": ["argument 'values' is a list", 10]}

from numba import cuda


@cuda.jit
def fill(values):
    i = cuda.grid(1)
    values[i] = i


fill[1, 4]([0, 0, 0, 0])
