"""A shell command inside a kernel (written for this suite from issue 15's list)."""

GPUVIZ_EXPECT = {"refused": ["os.system() is not supported", 13]}

import os

import numpy as np
from numba import cuda


@cuda.jit
def run(a):
    os.system("touch gpuviz-was-here")
    a[0] = 1


run[1, 1](np.zeros(1))
