"""Importing numba-cuda: the one place that knows its import-time quirks."""

from __future__ import annotations

import os

_real_cuda = None
_real_jit = None


def import_numba_cuda():
    """The real numba.cuda (kept, since `gpuviz run` puts a wrapper in its place while a script
    runs), importable also with NumPy 2.5 (numba-cuda 0.30 still calls np.row_stack)."""
    global _real_cuda, _real_jit
    if _real_cuda is not None:
        return _real_cuda
    import numpy as np

    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    if "NUMBA_CACHE_DIR" not in os.environ:  # read by numba at import: compiled kernels land here
        from gpuviz.instrument.gpu_rewrite import cache_dir

        os.environ["NUMBA_CACHE_DIR"] = str(cache_dir() / "numba")
    import importlib

    _real_cuda = importlib.import_module("numba.cuda")
    _real_jit = _real_cuda.jit
    return _real_cuda


def numba_jit():
    """numba's own cuda.jit, even while `gpuviz run` has put gpuviz's in its place."""
    import_numba_cuda()
    return _real_jit
