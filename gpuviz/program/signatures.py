"""Scalar arguments as a kernel's explicit signature types them: `cuda.jit("void(int32[:], uint32)")`
launched with the Python int 0x00100000 passes a uint32 to numba, so `cuda.clz` counts 32 bits (11),
where the int64 a bare Python int becomes would count 64 (43). Both backends see the declared type."""

from __future__ import annotations

import numpy as np

from gpuviz.core.errors import GpuvizError


def declared_arguments(signatures: tuple, args: tuple) -> tuple:
    """The arguments with each number cast to the scalar type of the first signature that fits the
    arrays given (as numba picks among eager signatures). Where every signature was read and none fits,
    numba-cuda refuses the launch (its eager kernels compile nothing more): so does this, in its words."""
    parsed = [_argument_dtypes(s) for s in signatures]
    for types in parsed:
        if types is not None and len(types) == len(args) and all(map(_fits, args, types)):
            return tuple(_cast(value, kind) for value, kind in zip(args, types))
    if signatures and None not in parsed:
        given = ", ".join(_type_name(value) for value in args)
        declared = "; ".join(str(s) for s in signatures)
        raise GpuvizError(f"No matching definition for argument type(s) {given}: the kernel's signature is {declared}")
    return tuple(args)


def _type_name(value) -> str:
    """An argument as numba names its type (array(float64, 1d, C), int64)."""
    try:
        from numba import typeof

        return str(typeof(np.asarray(value) if hasattr(value, "__array_interface__") else value))
    except Exception:  # a stand-in device array numba cannot type: its dtype and axes
        return f"array({getattr(value, 'dtype', '?')}, {getattr(value, 'ndim', '?')}d)"


def _argument_dtypes(signature) -> list | None:
    """Per argument: ("array", dtype, ndim), ("scalar", dtype) or None (a type kept as given); None for a
    signature numba cannot read here."""
    try:
        from numba.core import sigutils, types
        from numba.np.numpy_support import as_dtype

        arguments, _ = sigutils.normalize_signature(signature)
    except Exception:  # numba's CPU part missing, or a signature numba itself would refuse
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
    if kind is None:
        return True
    if kind[0] == "scalar":
        return isinstance(value, (bool, int, float, complex, np.generic))
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
