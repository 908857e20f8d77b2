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


def written_rows(array: np.ndarray, written: np.ndarray, count: int) -> tuple[list[bool], np.ndarray | None]:
    """(per array, ids 0..count-1: whether any row of it is marked in `written` (a write or an atomic);
    the rows of those arrays, or None where they are most rows: picking them out would cost more than
    looking at the read-only arrays' rows too)."""
    if count > FEW_ARRAYS:
        chosen = (np.bincount(array[written], minlength=count)[:count] > 0).tolist()
        mask = array_mask(array, chosen) if not all(chosen) else None
    else:
        chosen, mask = [], np.zeros(len(array), bool)
        for k in range(count):
            mine = array == k  # each array's rows are compared once, for both questions
            chosen.append(bool((written & mine).any()))
            if chosen[-1]:
                mask |= mine
    if mask is None or 2 * np.count_nonzero(mask) > len(array):
        return chosen, None
    return chosen, np.flatnonzero(mask)
