"""Runs of equal values in a log's column, found by the compiled analysis passes."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(inline="always")
def run_end(values, first, n, step):
    """Where the run of values equal to values[first] ends (a position past `first`, at most n): compared
    `step` rows at a time, a loop the compiler vectorises, then row by row. Positions are unsigned
    (np.uint64): numba tests a signed index for a negative value, which keeps the loop from vectorising."""
    v, end, one = values[first], first + np.uint64(1), np.uint64(1)
    while end + step <= n:
        same = True
        for q in range(end, end + step):
            same &= values[q] == v
        if not same:
            break
        end += step
    while end < n and values[end] == v:
        end += one
    return end
