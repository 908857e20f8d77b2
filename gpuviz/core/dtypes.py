"""NumPy dtypes from what kernels name them with: NumPy types, numba types or their names."""

from __future__ import annotations

import numpy as np


def to_dtype(dtype: object) -> np.dtype:
    """A NumPy dtype from a NumPy or numba type (numba.float32 prints as 'float32')."""
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype))
