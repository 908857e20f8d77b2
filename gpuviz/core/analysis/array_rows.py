"""Which access-log rows belong to some of a launch's arrays, cheaply where the arrays are few."""

from __future__ import annotations

import numpy as np

FEW_ARRAYS = 8  # up to this many chosen arrays, rows are picked by comparisons


def array_mask(array: np.ndarray, chosen: list[bool]) -> np.ndarray:
    """Which rows (their `array` column) are of the chosen arrays (chosen[k]: array k), by one comparison
    per chosen array where they are few: a table lookup of millions of int16 ids costs a dozen comparisons."""
    if sum(chosen) > FEW_ARRAYS:
        return np.array([*chosen, False])[array]
    mask = np.zeros(len(array), bool)
    for k in np.flatnonzero(chosen).tolist():
        mask |= array == k
    return mask
