"""`cuda.reduce` / `cuda.Reduce` on the simulator: the same answer, computed on the host.

numba-cuda compiles the binary function into a tree-reduction kernel of its own; that kernel is
not the user's and is not traced here (docs/simulator.md says so).
"""

from __future__ import annotations

import functools

import numpy as np


class Reduce:
    """`Reduce(binop)(arr, size=None, res=None, init=0, stream=0)` as numba-cuda's."""

    def __init__(self, functor):
        self._functor = getattr(functor, "py_func", functor)

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        values = np.asarray(arr).ravel()[: size if size is not None else None]
        result = functools.reduce(self._functor, values.tolist(), init)
        result = np.asarray(result).astype(values.dtype)[()] if values.size else init
        if res is not None:
            res[0] = result
            return None
        return result


def reduce(functor) -> Reduce:
    """`@cuda.reduce` decorates a binary function into a reduction."""
    return Reduce(functor)
