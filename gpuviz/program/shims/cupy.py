"""A NumPy-backed stand-in for the parts of CuPy that tutorials use with numba kernels."""

from __future__ import annotations

import types

import numpy as np


class ndarray(np.ndarray):  # noqa: N801  (CuPy's own name)
    """A host array with CuPy's transfer methods; a kernel takes it as device memory (no copies)."""

    _gpuviz_device_array = True

    def get(self, stream=None, order="C", out=None) -> np.ndarray:
        if out is not None:
            out[...] = self
            return out
        return np.array(self)

    def set(self, arr, stream=None) -> None:
        self[...] = arr


def _wrap(value):
    if isinstance(value, np.ndarray) and not isinstance(value, ndarray):
        return value.view(ndarray)
    return value


def _wrapping(function):
    def wrapped(*args, **kwargs):
        result = function(*args, **kwargs)
        if isinstance(result, tuple):
            return tuple(_wrap(r) for r in result)
        return _wrap(result)

    wrapped.__name__ = getattr(function, "__name__", "function")
    wrapped.__doc__ = getattr(function, "__doc__", None)
    return wrapped


def array(obj, dtype=None, copy=True, order="K", ndmin=0):
    return _wrap(np.array(np.asarray(obj), dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asarray(obj, dtype=None, order=None):
    return _wrap(np.asarray(obj, dtype=dtype, order=order))


def asnumpy(obj, stream=None, order="C", out=None) -> np.ndarray:
    result = np.array(obj, order=order)
    if out is not None:
        out[...] = result
        return out
    return result


def _random_namespace() -> types.SimpleNamespace:
    functions = "rand randn random random_sample uniform randint normal standard_normal choice shuffle permutation"
    space = types.SimpleNamespace(**{n: _wrapping(getattr(np.random, n)) for n in functions.split()})
    space.seed = np.random.seed
    space.default_rng = lambda seed=None: np.random.default_rng(seed)
    return space


random = _random_namespace()


class _Device:
    def __init__(self, device=0):
        self.id = device

    def synchronize(self) -> None:
        pass

    def use(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


class _Stream(_Device):
    null = None


_Stream.null = _Stream()
cuda = types.SimpleNamespace(
    Device=_Device,
    Stream=_Stream,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, deviceSynchronize=lambda: None),
    get_current_stream=lambda: _Stream.null,
)


def synchronize() -> None:
    pass


def get_array_module(*args):
    return __import__(__name__, fromlist=["ndarray"])


def __getattr__(name: str):
    value = getattr(np, name)  # AttributeError names what CuPy-on-NumPy lacks
    return _wrapping(value) if callable(value) and not isinstance(value, type) else value
