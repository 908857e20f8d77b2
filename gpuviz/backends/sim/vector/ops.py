"""The hooks a vectorised kernel calls: numba-typed operators (sim/arithmetic.py), math functions, casts and
bit intrinsics, lane-wise."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.arithmetic import (
    ARITHMETIC,
    KernelMisuse,
    binary,
    operands,
    true_division,
)
from gpuviz.backends.sim.bits import BIT_INTRINSICS


def logical_not(value: object) -> object:
    if isinstance(value, np.ndarray):
        return np.logical_not(value)
    return not value


def _to_int(x):
    return x.astype(np.int64) if isinstance(x, np.ndarray) else int(x)


def _to_float(x):
    return x.astype(np.float64) if isinstance(x, np.ndarray) else float(x)


def _floor_like(ufunc):
    def apply(x):
        if not isinstance(x, np.ndarray):
            return int(ufunc(x))
        return ufunc(x).astype(np.int64) if x.dtype.kind == "f" else x.astype(np.int64)

    return apply


def _min_max(ufunc):
    def apply(*values):
        if len(values) == 1:
            raise KernelMisuse("min/max of one sequence is not supported in kernels")
        result = values[0]
        for value in values[1:]:
            a, b, _ = operands("add", result, value)
            result = ufunc(a, b)
        return result

    return apply


def _round(x, digits=None):
    if digits is not None:
        return np.round(x, digits)
    return _to_int(np.round(x)) if isinstance(x, np.ndarray) else round(x)


LANEWISE = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "atan2": np.arctan2, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "floor": _floor_like(np.floor), "ceil": _floor_like(np.ceil), "trunc": _floor_like(np.trunc),
    "fabs": np.fabs, "pow": lambda a, b: np.power(_to_float(a), b), "hypot": np.hypot, "isnan": np.isnan,
    "isinf": np.isinf, "isfinite": np.isfinite, "copysign": np.copysign, "fmod": np.fmod,
    "degrees": np.degrees, "radians": np.radians,
    "min": _min_max(np.minimum), "max": _min_max(np.maximum), "abs": np.abs, "int": _to_int,
    "float": _to_float, "bool": lambda x: x.astype(bool) if isinstance(x, np.ndarray) else bool(x), "round": _round,
}  # fmt: skip
CAST_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
              "complex64", "complex128", "boolean")  # fmt: skip


def _cast(name: str):
    dtype = np.dtype(bool if name == "boolean" else name)

    def apply(x):
        return x.astype(dtype) if isinstance(x, np.ndarray) else dtype.type(x)

    return apply


def _vectorise_scalar(fn):
    """A bit intrinsic for one value applied to each lane (rare in kernels; kept simple)."""

    def apply(*args):
        if not any(isinstance(a, np.ndarray) for a in args):
            return fn(*args)
        arrays = np.broadcast_arrays(*[np.asarray(a) for a in args])
        flat = [a.ravel() for a in arrays]
        return np.array([fn(*(a[k] for a in flat)) for k in range(flat[0].size)]).reshape(arrays[0].shape)

    return apply


def operation_hooks(bit_functions: dict, active=lambda: True) -> dict:
    """Every `_gv_op_*`, `_gv_fn_*`, `_gv_cast_*` and bit-intrinsic hook of the vector flavour."""
    hooks = {f"_gv_op_{name}": binary(name, active) for name in ARITHMETIC}
    hooks["_gv_op_truediv"] = true_division(active)
    hooks["_gv_not"] = logical_not
    hooks.update({f"_gv_fn_{name}": fn for name, fn in LANEWISE.items()})
    hooks.update({f"_gv_cast_{name}": _cast(name) for name in CAST_TYPES})
    hooks.update({name: _vectorise_scalar(fn) for name, fn in bit_functions.items()})
    hooks.update(BIT_INTRINSICS)  # lane-wise already
    hooks["_gv_fma"] = lambda a, b, c: hooks["_gv_op_add"](hooks["_gv_op_mul"](a, b), c)
    hooks["_gv_cbrt"] = np.cbrt
    hooks["_gv_selp"] = lambda p, a, b: np.where(p, a, b) if isinstance(p, np.ndarray) else (a if p else b)
    hooks["_gv_noop"] = lambda *args: None
    return hooks
