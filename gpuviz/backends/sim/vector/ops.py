"""Lane-wise arithmetic with numba's typing rules, and the math functions a vectorised kernel calls.

Where numba and NumPy disagree, numba wins: integers compute at 64 bits (int32 + int32 is int64),
a Python float is a float64 (float32 * 0.5 is float64), `/` of integers is float64, and `//` and
`%` floor as Python does (NumPy's floor_divide and remainder already do). Stores convert to the
array's type, which the memory hooks do.
"""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.bits import BIT_INTRINSICS
from gpuviz.instrument.vector_rewrite import ReferenceEngineNeeded

_ARITHMETIC = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "floordiv": np.floor_divide, "mod": np.remainder,
    "pow": np.power, "lshift": np.left_shift, "rshift": np.right_shift, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "and": np.bitwise_and,
}  # fmt: skip
_BITWISE = {"or", "xor", "and"}


def numba_type(value: object) -> np.dtype:
    """The type numba computes a value at: Python ints int64, Python floats float64, small ints int64."""
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(bool)
    if isinstance(value, int):
        return np.dtype(np.int64)
    if isinstance(value, float):
        return np.dtype(np.float64)
    if isinstance(value, complex):
        return np.dtype(np.complex128)
    dtype = np.asarray(value).dtype
    if dtype.kind == "i" and dtype.itemsize < 8:
        return np.dtype(np.int64)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64) if dtype.itemsize >= 4 else np.dtype(np.int64)
    return dtype


def _operands(name: str, a: object, b: object) -> tuple[object, object, np.dtype]:
    ta, tb = numba_type(a), numba_type(b)
    if ta.kind == "b" and tb.kind == "b" and name in _BITWISE:
        return a, b, ta
    if ta.kind == "b":
        ta = np.dtype(np.int64)
    if tb.kind == "b":
        tb = np.dtype(np.int64)
    common = np.promote_types(ta, tb)
    if common.kind == "f" and {ta.kind, tb.kind} == {"u", "i"} and min(_width(a, ta), _width(b, tb)) < 8:
        common = np.dtype(np.int64)  # numba: uint32 with int64 is int64 (only uint64 with int64 is float64)
    return _as(a, common), _as(b, common), common


def _width(value: object, promoted: np.dtype) -> int:
    """Bytes of an unsigned operand before numba widened it to uint64 (8 for anything else)."""
    if promoted.kind != "u":
        return 8
    return np.asarray(value).dtype.itemsize if isinstance(value, (np.ndarray, np.generic)) else 8


def _as(value: object, dtype: np.dtype) -> object:
    if isinstance(value, np.ndarray):
        return value.astype(dtype, copy=False)
    return dtype.type(value)


class LaneDivisionByZero(ZeroDivisionError, ReferenceEngineNeeded):
    """An integer division by zero in an active lane: the reference engine reruns the launch to word it."""


class KernelMisuse(ReferenceEngineNeeded):
    """A call the kernel makes wrongly (numba would refuse it too): the reference engine words the error."""


def _check_divisor(divisor, active) -> None:
    """Lanes switched off (by a guard such as `if d != 0`) compute garbage nobody keeps; an active
    lane dividing an integer by zero is the kernel's error."""
    zero = np.asarray(divisor) == 0
    if np.any(zero & active()) if zero.ndim else (zero and np.any(active())):
        raise LaneDivisionByZero("division by zero")


def binary(name: str, active=lambda: True):
    """A lane-wise operator; `active()` is the running batch's mask (integer division checks it)."""
    ufunc = _ARITHMETIC[name]

    def apply(a, b):
        a, b, common = _operands(name, a, b)
        if name in ("floordiv", "mod") and common.kind in "iu":
            _check_divisor(b, active)
        return ufunc(a, b)

    return apply


def true_division(active=lambda: True):
    def true_divide(a, b):
        a, b, common = _operands("truediv", a, b)
        if common.kind in "iub":
            _check_divisor(b, active)
            a, b = _as(a, np.dtype(np.float64)), _as(b, np.dtype(np.float64))
        return np.true_divide(a, b)

    return true_divide


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
            a, b, _ = _operands("add", result, value)
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
    hooks = {f"_gv_op_{name}": binary(name, active) for name in _ARITHMETIC}
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
