"""NumPy dtypes from what kernels name them with: NumPy types, numba types or their names."""

from __future__ import annotations

import numpy as np


def to_dtype(dtype: object) -> np.dtype:
    """A NumPy dtype from a NumPy or numba type (numba.float32 prints as 'float32')."""
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype))


def dtype_text(dtype: object) -> str:
    """A dtype as a trace's meta names it: its usual name ('float32'), or for a dtype whose name does
    not read back (a structured one, e.g. random-number states) its raw form ('|V16', same itemsize)."""
    dtype = to_dtype(dtype)
    try:
        if np.dtype(str(dtype)) == dtype:
            return str(dtype)
    except (TypeError, ValueError):
        pass
    return dtype.str


def itemsize_of(text: object, default: int | None = None) -> int | None:
    """Bytes per element of a dtype named in a trace's meta; `default` when the name means nothing
    (a GPU trace names a dynamic shared array 'unknown')."""
    try:
        return np.dtype(text).itemsize
    except (TypeError, ValueError):
        return default
