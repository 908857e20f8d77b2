"""Arithmetic with numba's typing rules, on one value (the reference engine) or a batch of lanes (the vector
engine).

Where numba and NumPy disagree, numba wins: integers compute at 64 bits (int32 * int32 is int64, where
NumPy keeps int32 and wraps), a Python float is a float64 (float32 * 0.1 is float64, where NumPy keeps
float32), `/` of integers is float64, and `//` and `%` floor as Python does (NumPy's floor_divide and
remainder already do). Stores convert to the array's type, which the memory hooks do. An integer division
by zero in an active lane raises (the engines word it as the thread's fault).
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from gpuviz.instrument.vector_rewrite import ReferenceEngineNeeded

ARITHMETIC = {
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


def operands(name: str, a: object, b: object) -> tuple[object, object, np.dtype]:
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
    ufunc = ARITHMETIC[name]

    def apply(a, b):
        if name == "pow" and numba_type(a).kind == "f" and numba_type(b).kind in "iub":
            return _float_to_int_power(a, b)
        if name in ("lshift", "rshift"):  # numba: the left operand's signedness, 64 bits (uint64 >> int is uint64)
            kind = np.dtype(np.uint64) if _unsigned(a) else np.dtype(np.int64)
            return ufunc(_as(a, kind), _as(b, kind))
        if name in _BITWISE and {numba_type(a).kind, numba_type(b).kind} == {"i", "u"}:
            return ufunc(_as(a, np.dtype(np.int64)), _as(b, np.dtype(np.int64)))  # numba: signed if either is
        a, b, common = operands(name, a, b)
        if name in ("floordiv", "mod") and common.kind in "iu":
            _check_divisor(b, active)
        return ufunc(a, b)

    return apply


def _unsigned(value: object) -> bool:
    """An unsigned integer, of any width (numba_type gives one narrower than 32 bits as int64)."""
    return isinstance(value, (np.ndarray, np.generic)) and np.asarray(value).dtype.kind == "u"


def negate(value: object) -> object:
    """-x as numba computes it: in x's numba type (-True is -1, an int64; -int32 is an int64)."""
    if isinstance(value, (np.ndarray, np.generic, bool)):
        return -_as(value, np.dtype(np.int64) if numba_type(value).kind == "b" else numba_type(value))
    return -value


def _float_to_int_power(base, exponent):
    """A float to a whole power as numba computes it: in the base's own type (float32 ** 2 is float32), by
    squaring (x ** 3 is x * (x * x), not NumPy's pow: 3.3 ** 3 is 35.937, not 35.93699999999999), and 1 over
    that for a negative power."""
    dtype = numba_type(base)
    base = np.asarray(base, dtype) if isinstance(base, np.ndarray) else dtype.type(base)
    left = np.abs(np.asarray(exponent, np.int64))
    result = np.ones_like(base)
    while np.any(left):
        result = np.where(left & 1, result * base, result).astype(dtype, copy=False)
        left = left >> 1
        base = base * base
    result = np.where(np.asarray(exponent) < 0, dtype.type(1) / result, result).astype(dtype, copy=False)
    return result if isinstance(result, np.ndarray) and result.ndim else dtype.type(result)


def true_division(active=lambda: True):
    def true_divide(a, b):
        a, b, common = operands("truediv", a, b)
        if common.kind in "iub":
            _check_divisor(b, active)
            a, b = _as(a, np.dtype(np.float64)), _as(b, np.dtype(np.float64))
        return np.true_divide(a, b)

    return true_divide


# One thread's values compute as numba types them, at close to Python's speed: an int64 result through
# Python's ints (wrapped past 64 bits as numba's wraps), a float64 one as a Python float (the same IEEE double); other
# types (float32, uint64, complex) through NumPy's scalars, as the vector engine's lanes do.
_PLAIN_INT = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
              "mod": operator.mod, "lshift": operator.lshift, "rshift": operator.rshift, "or": operator.or_,
              "xor": operator.xor, "and": operator.and_}  # fmt: skip
_PLAIN_FLOAT = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}  # division: inf and nan as numba's
_PYTHON = {**_PLAIN_INT, "pow": operator.pow, "truediv": operator.truediv}
_NUMBERS = (int, float, complex, np.generic)
_NUMBERS_OR_LANES = (*_NUMBERS, np.ndarray)
_INT64, _FLOAT64 = np.dtype(np.int64), np.dtype(np.float64)
_common_types: dict[tuple, np.dtype] = {}  # (operator, type, type) -> the type numba computes in


def _wrapped(value: int) -> int:
    """A Python int as numba's int64 holds it."""
    return value if -(1 << 63) <= value < (1 << 63) else ((value + (1 << 63)) % (1 << 64)) - (1 << 63)


def _on_one_value(name: str, typed: Callable) -> Callable:
    plain_int, plain_float, python = _PLAIN_INT.get(name), _PLAIN_FLOAT.get(name), _PYTHON[name]

    def apply(a, b):
        key = (name, type(a), type(b))
        common = _common_types.get(key)
        if common is None:
            if not (isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS)):  # tuples, arrays: as Python has them
                return python(a, b)
            common = _common_types[key] = operands(name, a, b)[2]
        if common == _INT64 and plain_int is not None and (name != "lshift" or 0 <= b < 64):
            # by zero: Python's ZeroDivisionError, the thread's fault; an int64 as NumPy's, so that a store into a
            # narrower element wraps as numba's does (NumPy refuses a Python int out of the element's range)
            return np.int64(_wrapped(plain_int(int(a), int(b))))
        if common == _FLOAT64 and plain_float is not None:
            return plain_float(float(a), float(b))
        return typed(a, b)

    return apply


def one_value_hooks() -> dict[str, Callable]:
    """The operator hooks of a kernel that computes one thread's values at a time (the reference engine):
    numba's types, as the vector engine's lanes have them."""
    hooks = {f"_gv_op_{name}": _on_one_value(name, binary(name)) for name in ARITHMETIC}
    hooks["_gv_op_truediv"] = _on_one_value("truediv", true_division())
    return hooks


def as_stored(value: object, dtype: np.dtype) -> object:
    """A value as numba stores it into an element of `dtype`: an integer wrapped to the element's width, as C's
    conversion does (NumPy refuses an integer out of the element's range, a Python int or its own)."""
    if dtype.kind not in "iu" or isinstance(value, (bool, np.bool_)):
        return value
    if type(value) is int:
        return np.uint64(value & 0xFFFF_FFFF_FFFF_FFFF).astype(dtype)
    if isinstance(value, np.integer) and value.dtype != dtype:
        return value.astype(dtype)
    return value


_COMPARISONS = {"lt": (np.less, operator.lt), "le": (np.less_equal, operator.le), "gt": (np.greater, operator.gt),
                "ge": (np.greater_equal, operator.ge), "eq": (np.equal, operator.eq),
                "ne": (np.not_equal, operator.ne)}  # fmt: skip


def comparison(name: str) -> Callable:
    """A comparison as numba makes it: both sides in their common type (float32 with a Python float compares in
    float64, so np.float32(0.1) > 0.1, where NumPy compares in float32 and finds them equal)."""
    ufunc, python = _COMPARISONS[name]

    def compare(a, b):
        kinds = type(a), type(b)
        if kinds in ((int, int), (float, float)):
            return python(a, b)
        if not (isinstance(a, _NUMBERS_OR_LANES) and isinstance(b, _NUMBERS_OR_LANES)):  # None, tuples: Python's
            return python(a, b)
        a, b, _ = operands("add", a, b)
        return ufunc(a, b)

    return compare


def comparison_hooks() -> dict[str, Callable]:
    """The comparisons' hooks, and negation's (a unary operator with numba's types too)."""
    return {**{f"_gv_cmp_{name}": comparison(name) for name in _COMPARISONS}, "_gv_neg": negate}


def min_or_max(largest: bool) -> Callable:
    """min() or max() of two or more values as numba computes them: Python's own algorithm (a later value
    replaces the kept one only if strictly smaller, or larger) in the values' common type. So max(0.0, nan)
    is 0.0 and max(-0.0, 0.0) is -0.0, where NumPy's maximum gives nan and 0.0."""
    better = np.greater if largest else np.less

    def apply(*values):
        if len(values) == 1:
            raise KernelMisuse("min/max of one sequence is not supported in kernels")
        result = values[0]
        for value in values[1:]:
            a, b, _ = operands("add", result, value)
            result = np.where(better(b, a), b, a)
        return result if result.ndim else result[()]

    return apply
