"""Scalar arguments as a kernel's explicit signature types them: `cuda.jit("void(int32[:], uint32)")`
launched with the Python int 0x00100000 passes a uint32 to numba, so `cuda.clz` counts 32 bits (11),
where the int64 a bare Python int becomes would count 64 (43). Both backends see the declared type."""

from __future__ import annotations

import numpy as np


def declared_arguments(signatures: tuple, args: tuple) -> tuple:
    """The arguments with each number cast to the scalar type of the first signature that fits the
    arrays given (as numba picks among eager signatures); unchanged without a fitting signature."""
    for types in filter(None, (_argument_dtypes(s, len(args)) for s in signatures)):
        if all(_fits(value, kind) for value, kind in zip(args, types)):
            return tuple(_cast(value, kind) for value, kind in zip(args, types))
    return tuple(args)


def _argument_dtypes(signature, count: int) -> list | None:
    """Per argument: ("array", dtype, ndim), ("scalar", dtype) or None (a type kept as given)."""
    try:
        from numba.core import sigutils, types
        from numba.np.numpy_support import as_dtype

        arguments, _ = sigutils.normalize_signature(signature)
    except Exception:  # numba's CPU part missing, or a signature numba itself would refuse
        return None
    if len(arguments) != count:
        return None
    kinds = []
    for kind in arguments:
        try:
            if isinstance(kind, types.Array):
                kinds.append(("array", as_dtype(kind.dtype), kind.ndim))
            elif isinstance(kind, (types.Integer, types.Float, types.Complex, types.Boolean)):
                kinds.append(("scalar", as_dtype(kind)))
            else:
                kinds.append(None)
        except Exception:  # a record or another type NumPy has no dtype for: left as given
            kinds.append(None)
    return kinds


def _fits(value, kind) -> bool:
    if kind is None or kind[0] == "scalar":
        return True
    dtype, ndim = kind[1], kind[2]
    return getattr(value, "dtype", None) == dtype and getattr(value, "ndim", None) == ndim


def _cast(value, kind):
    """A number as the signature's scalar type, wrapping as numba's C conversion does (0xFFFFFFFF as
    an int32 is -1)."""
    if kind is None or kind[0] != "scalar" or not isinstance(value, (bool, int, float, complex, np.generic)):
        return value
    dtype = kind[1]
    with np.errstate(over="ignore", invalid="ignore"):
        held = np.asarray(value)
        if held.dtype.kind == "c" and dtype.kind != "c":
            held = held.real
        return held.astype(dtype)[()]
