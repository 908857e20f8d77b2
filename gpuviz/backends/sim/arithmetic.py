"""Arithmetic with numba's typing rules, on one value (the reference engine) or a batch of lanes (the vector
engine).

Where numba and NumPy disagree, numba wins: integers compute at 64 bits (int32 * int32 is int64, where
NumPy keeps int32 and wraps), a Python float is a float64 (float32 * 0.1 is float64, where NumPy keeps
float32), `/` of integers is float64, and `//` and `%` floor as Python does (NumPy's floor_divide and
remainder already do). Stores convert to the array's type, which the memory hooks do. An integer division
by zero in an active lane raises (the engines word it as the thread's fault).
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from gpuviz.backends.sim.numba_types import CODES, TABLES
from gpuviz.instrument.vector_rewrite import ReferenceEngineNeeded

ARITHMETIC = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "floordiv": np.floor_divide, "mod": np.remainder,
    "pow": np.power, "lshift": np.left_shift, "rshift": np.right_shift, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "and": np.bitwise_and,
}  # fmt: skip
_BOOL, _INT64, _UINT64, _FLOAT64 = np.dtype(bool), np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.float64)
_MASK64 = (1 << 64) - 1
_OUTSIDE = object()


def numba_type(value: object) -> np.dtype:
    """The type numba gives a value: a Python int is an int64 (a uint64 from 2**63), a Python float a float64,
    a NumPy value or lane array its own type."""
    if isinstance(value, (bool, np.bool_)):
        return _BOOL
    if isinstance(value, int):
        return _INT64 if value < 1 << 63 else _UINT64
    if isinstance(value, float):
        return _FLOAT64
    if isinstance(value, complex):
        return np.dtype(np.complex128)
    return value.dtype if isinstance(value, (np.ndarray, np.generic)) else np.asarray(value).dtype


def _code_dtype(code: str) -> np.dtype | None:
    return None if code == "-" else _BOOL if code == "b" else np.dtype(code)


_NUMBERS_TYPED = tuple(_code_dtype(code) for code in CODES)


@functools.cache
def _parsed(rows: tuple[str, ...]) -> dict:
    """One table as {(left type, right type): type}, or {type: type} for one column (None where refused); a table
    several operators share is parsed once."""
    if " " not in rows[0]:
        return dict(zip(_NUMBERS_TYPED, map(_code_dtype, rows)))
    return {(_NUMBERS_TYPED[i], _NUMBERS_TYPED[j]): _code_dtype(code)
            for i, row in enumerate(rows) for j, code in enumerate(row.split())}  # fmt: skip


# operator, "compare", "max" or "math.<name>" -> {(left type, right type): numba-cuda's type}; the one-argument
# ones ("neg", "invert", "math.sqrt", ...) -> {type: numba-cuda's type}
RESULT_TYPES = {name: _parsed(rows) for name, rows in TABLES.items() if " " in rows[0]}
UNARY_TYPES = {name: _parsed(rows) for name, rows in TABLES.items() if " " not in rows[0]}
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%", "truediv": "/", "pow": "**",
            "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>", "compare": "comparison",
            "max": "min/max", "neg": "unary -", "pos": "unary +", "invert": "~"}  # fmt: skip


def result_type(name: str, left: np.dtype, right: np.dtype) -> np.dtype:
    """The type numba-cuda computes `left <name> right` in (backends/sim/numba_types.py, read from numba-cuda's
    typing): integers at 64 bits, unsigned only if both are (uint8 - uint32 wraps as a uint64, uint64 + 1 is an
    int64); float32 with int8, int16, uint8 or bool stays float32, with a wider integer becomes float64."""
    found = RESULT_TYPES[name].get((left, right), _OUTSIDE)
    if found is _OUTSIDE:  # not one of numba's number types (a record, a datetime): NumPy's rule
        return np.promote_types(left, right)
    if found is None:
        raise KernelMisuse(f"numba-cuda has no {_SYMBOLS[name]} of {left} and {right}; the kernel would not compile")
    return found


def operands(name: str, a: object, b: object) -> tuple[object, object, np.dtype]:
    """Both operands converted to the type numba-cuda computes `a <name> b` in, and that type."""
    common = result_type(name, numba_type(a), numba_type(b))
    return _as(a, common), _as(b, common), common


def _as(value: object, dtype: np.dtype) -> object:
    """A value in another type as C converts it: an integer wraps (a uint64 past 2**63 is a negative int64)."""
    if isinstance(value, np.ndarray):
        return value.astype(dtype, copy=False)
    if isinstance(value, np.generic):
        return value if value.dtype == dtype else value.astype(dtype)
    if type(value) is int and dtype.kind in "iu":
        return dtype.type(_wrapped(value) if dtype.kind == "i" else value & _MASK64)
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
        whole_exponent = name == "pow" and numba_type(b).kind in "iub"  # before `operands` makes it a float
        exponent = b
        a, b, common = operands(name, a, b)
        if whole_exponent and common.kind == "f":
            return _float_to_int_power(a, exponent, common)
        if name == "pow" and common.kind in "iu":
            return _int_power(a, b, common, active)
        if name in ("floordiv", "mod") and common.kind in "iu":
            _check_divisor(b, active)
            if common == _INT64:
                return _without_overflow(ufunc, a, b)
        return ufunc(a, b)

    return apply


_INT64_MIN = np.int64(-(1 << 63))


def _without_overflow(ufunc, a, b):
    """int64 // and %: the lowest int64 divided by -1 overflows; numba's code gives 0 there (its CPU compiler and
    an H200 alike, 2026-11-27), where NumPy gives the lowest int64 again."""
    overflow = (np.asarray(a) == _INT64_MIN) & (np.asarray(b) == -1)
    if not np.any(overflow):
        return ufunc(a, b)
    with np.errstate(over="ignore"):
        return np.where(overflow, np.int64(0), ufunc(a, np.where(overflow, 1, b))).astype(np.int64)[()]


def negate(value: object) -> object:
    """-x as numba computes it: -True is -1 (an int64); an integer is negated in its own width, then widened
    (-uint8(200) is 56, a uint64; -int8(-128) is -128)."""
    return _unary("neg", value, operator.neg)


def positive(value: object) -> object:
    """+x as numba computes it: +True is 1 (an int64), where NumPy refuses a bool; a number stays itself."""
    return _unary("pos", value, operator.pos)


def invert(value: object) -> object:
    """~x as numba computes it: in x's own width, then widened (~uint8(3) is 252, a uint64); ~True is False."""
    return _unary("invert", value, operator.invert)


def _unary(name: str, value: object, python: Callable) -> object:
    if type(value) is int or type(value) is float:
        return np.int64(_wrapped(python(value))) if type(value) is int else python(value)
    dtype = numba_type(value)
    found = UNARY_TYPES[name].get(dtype, dtype)
    if found is None:
        raise KernelMisuse(f"numba-cuda has no {_SYMBOLS[name]} of {dtype}; the kernel would not compile")
    if dtype.kind == "b":
        return np.logical_not(value) if found.kind == "b" else python(_as(value, found))
    if dtype.kind not in "iu":
        return _as(python(value), found)
    with np.errstate(over="ignore"):  # -int8(-128) wraps, as numba's does
        return _as(python(value), found)


def _float_to_int_power(base, exponent, dtype: np.dtype):
    """A float to a whole power as numba computes it: in the result's type (float32 ** 2 is float32), by
    squaring (x ** 3 is x * (x * x), not NumPy's pow: 3.3 ** 3 is 35.937, not 35.93699999999999), and 1 over
    that for a negative power."""
    left = np.abs(np.asarray(exponent).astype(np.int64))
    result = np.ones_like(base)
    while np.any(left):
        result = np.where(left & 1, result * base, result).astype(dtype, copy=False)
        left = left >> 1
        base = base * base
    result = np.where(np.asarray(exponent) < 0, dtype.type(1) / result, result).astype(dtype, copy=False)
    return result if isinstance(result, np.ndarray) and result.ndim else dtype.type(result)


def _int_power(base, exponent, dtype: np.dtype, active):
    """An integer to an integer power as numba computes it: to a negative power 0, except 1 and -1 (1, and -1 to
    an odd power); 0 to a negative power is the kernel's error (numba raises ZeroDivisionError there)."""
    base, exponent = np.asarray(base), np.asarray(exponent)
    negative = exponent < 0
    if not np.any(negative):
        return np.power(base, exponent)
    zero = (base == 0) & negative
    if np.any(zero & active()) if zero.ndim else (zero and np.any(active())):
        raise ZeroToNegativePower("0 to a negative power")
    powers = np.power(base, np.where(negative, 0, exponent))
    unit = np.where(base == -1, np.where(exponent % 2 == 1, -1, 1), np.where(base == 1, 1, 0)).astype(dtype)
    result = np.where(negative, unit, powers).astype(dtype, copy=False)
    return result if result.ndim else dtype.type(result)


class ZeroToNegativePower(LaneDivisionByZero):
    """0 to a negative integer power in an active lane (numba's integer power raises ZeroDivisionError)."""


class IntegersDividedByZero(LaneDivisionByZero):
    """An integer divided by 0 with `/` in an active lane (a float division on a GPU: inf, or nan for 0 / 0)."""


def true_division(active=lambda: True):
    def true_divide(a, b):
        integers = numba_type(a).kind in "iub" and numba_type(b).kind in "iub"
        a, b, _ = operands("truediv", a, b)
        if integers:
            try:
                _check_divisor(b, active)
            except LaneDivisionByZero:
                raise IntegersDividedByZero("division by zero") from None
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
_common_types: dict[tuple, np.dtype] = {}  # (operator, type, type) -> the type numba computes in


def _wrapped(value: int) -> int:
    """A Python int as numba's int64 holds it."""
    return value if -(1 << 63) <= value < (1 << 63) else ((value + (1 << 63)) % (1 << 64)) - (1 << 63)


def _on_one_value(name: str, typed: Callable) -> Callable:
    plain_int, plain_float, python = _PLAIN_INT.get(name), _PLAIN_FLOAT.get(name), _PYTHON[name]
    shift = name in ("lshift", "rshift")

    def apply(a, b):
        key = (name, type(a), type(b))
        huge = _huge(a) or _huge(b)  # a Python int from 2**63 is a uint64: its type is not its class's
        common = None if huge else _common_types.get(key)
        if common is None:
            if not (isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS)):  # tuples, arrays: as Python has them
                return python(a, b)
            common = operands(name, a, b)[2]
            if not huge:
                _common_types[key] = common
        if plain_int is not None and common in (_INT64, _UINT64) and (not shift or 0 <= b < 64):
            # by zero: Python's ZeroDivisionError, the thread's fault; the result as NumPy's scalar, so that a store
            # into a narrower element wraps as numba's does (NumPy refuses a Python int out of the element's range)
            if common == _INT64:
                a, b = _wrapped(int(a)), _wrapped(int(b))
                if b == -1 and a == -(1 << 63) and name in ("floordiv", "mod"):
                    return np.int64(0)  # numba's code gives 0 where the quotient overflows (see _without_overflow)
                return np.int64(_wrapped(plain_int(a, b)))
            return np.uint64(plain_int(int(a) & _MASK64, int(b) & _MASK64) & _MASK64)
        if common == _FLOAT64 and plain_float is not None:
            return plain_float(float(a), float(b))
        return typed(a, b)

    return apply


def _huge(value: object) -> bool:
    return type(value) is int and not -(1 << 63) <= value < (1 << 63)


def one_value_hooks() -> dict[str, Callable]:
    """The operator hooks of a kernel that computes one thread's values at a time (the reference engine):
    numba's types, as the vector engine's lanes have them."""
    hooks = {f"_gv_op_{name}": _on_one_value(name, binary(name)) for name in ARITHMETIC}
    hooks["_gv_op_truediv"] = _on_one_value("truediv", true_division())
    return hooks


def as_stored(value: object, dtype: np.dtype) -> object:
    """A value as numba-cuda stores it into an element of `dtype` on a GPU: an integer wrapped to the element's
    width, as C's conversion does (NumPy refuses an integer out of the element's range, a Python int or its own);
    a float converted as a GPU converts it (`float_to_integer`); a complex value only into a complex element."""
    if isinstance(value, (complex, np.complexfloating)) and dtype.kind != "c":
        raise KernelMisuse(complex_store_refusal(numba_type(value), dtype))
    if dtype.kind not in "iu" or isinstance(value, (bool, np.bool_)):
        return value
    if type(value) is int:
        return np.uint64(value & _MASK64).astype(dtype)
    if isinstance(value, np.integer) and value.dtype != dtype:
        return value.astype(dtype)
    if isinstance(value, (float, np.floating)) or (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        return float_to_integer(value, dtype)
    return value


def complex_store_refusal(value_type: np.dtype, dtype: np.dtype) -> str:
    """numba-cuda types no store of a complex value into a real or bool element (NumPy keeps the real part)."""
    return (f"numba-cuda cannot store a {value_type} into an element of {dtype} (it has no setitem for them): "
            "store z.real, z.imag or abs(z)")  # fmt: skip


_RANGES: dict[np.dtype, np.iinfo] = {}


def float_to_integer(value: object, dtype: np.dtype) -> object:
    """Floats converted to integers of `dtype` as a GPU converts them (numba-cuda 0.30.4 on an H200, 2026-11-27,
    docs/simulator.md): toward zero, saturated at the type's range, an 8-bit type through a 16-bit one (300.7 is
    44 in an int8 or uint8, 3e9 is -1 or 255); NaN is 0 in 8 bits and from a float32 up to 32 bits, else the
    range's sign bit (-2**31 in an int32, 2**31 in a uint32, from a float64). x86's conversion, which NumPy's is,
    gives the type's lowest value for every out-of-range float and NaN."""
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        whole = math.trunc(float(value))  # one value in range: as Python converts (the common case, kept fast)
        info = _RANGES.get(dtype) or _RANGES.setdefault(dtype, np.iinfo(dtype))
        if info.min <= whole <= info.max:
            return dtype.type(whole)
    source = np.asarray(value)
    bits, signed = dtype.itemsize * 8, dtype.kind == "i"
    width = max(bits, 16)
    wide = np.dtype(f"{dtype.kind}{width // 8}")
    low, high = (-(2.0 ** (width - 1)), 2.0 ** (width - 1)) if signed else (0.0, 2.0**width)
    with np.errstate(invalid="ignore", over="ignore"):
        whole = np.trunc(source.astype(np.float64))
        nan, below, above = np.isnan(whole), whole < low, whole >= high
        result = np.where(nan | below | above, 0, whole).astype(wide)
    info = np.iinfo(wide)
    result = np.where(below, info.min, np.where(above, info.max, result)).astype(wide)
    sign_bit = info.min if signed else 1 << (bits - 1)
    nan_value = 0 if bits <= 32 and (bits == 8 or source.dtype.itemsize < 8) else sign_bit
    result = np.where(nan, np.array(nan_value).astype(wide), result).astype(dtype)  # 8 bits: wrapped from 16
    return result if isinstance(value, np.ndarray) and np.ndim(value) else dtype.type(result[()])


CAST_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
              "complex64", "complex128", "boolean")  # fmt: skip


def cast(name: str) -> Callable:
    """`int32(x)`, `float32(x)`: numba's number types called as casts; a float into an integer type converts as a
    GPU stores it (`float_to_integer`), an integer wraps."""
    dtype = np.dtype(bool if name == "boolean" else name)

    def apply(x):
        if dtype.kind in "iu" and numba_type(x).kind == "f":
            return float_to_integer(x, dtype)
        if dtype.kind in "iu" and type(x) is int:
            return as_stored(x, dtype)  # uint8(300) is 44: wrapped, as C converts
        return x.astype(dtype) if isinstance(x, np.ndarray) else dtype.type(x)

    return apply


def cast_hooks() -> dict[str, Callable]:
    return {f"_gv_cast_{name}": cast(name) for name in CAST_TYPES}


def to_int(value: object) -> object:
    """`int(x)` in a kernel: an int64; a float converted as a GPU converts it (NaN and overflow do not raise)."""
    if isinstance(value, np.ndarray):
        return float_to_integer(value, _INT64) if value.dtype.kind in "fc" else value.astype(np.int64)
    if isinstance(value, (float, np.floating)):
        return float_to_integer(value, _INT64)
    return int(value)


def numba_range(*bounds: object) -> range:
    """range() as numba types it: a float bound is converted as `int(x)` is (`range(2.7)` runs twice), where
    Python's range refuses a float."""
    return range(*(to_int(b) if isinstance(b, (float, np.floating)) else b for b in bounds))


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
        a, b, common = operands("compare", a, b)
        if common.kind == "c" and name not in ("eq", "ne"):
            raise KernelMisuse(f"numba-cuda has no ordering of complex values ({common}); the kernel would not compile")
        return ufunc(a, b)

    return compare


def comparison_hooks() -> dict[str, Callable]:
    """The comparisons' hooks, and the unary operators' (numba types them too)."""
    return {**{f"_gv_cmp_{name}": comparison(name) for name in _COMPARISONS}, "_gv_neg": negate, "_gv_pos": positive,
            "_gv_invert": invert}  # fmt: skip


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
            a, b, _ = operands("max", result, value)
            result = np.where(better(b, a), b, a)
        return result if result.ndim else result[()]

    return apply


def fused_multiply_add(a: object, b: object, c: object) -> object:
    """`cuda.fma(a, b, c)`: a * b + c rounded once (the GPU's fma.rn), in float32 where every operand fits one
    (float16 included: numba-cuda's fma has float32 and float64 signatures only), else float64. Two operations
    round twice: fma(1 + 2**-12, 1 + 2**-12, -(1 + 2**-11)) comes out 0 where it is 2**-24."""
    narrow = all(numba_type(v) in _FITS_FLOAT32 for v in (a, b, c))
    dtype = np.dtype(np.float32) if narrow else _FLOAT64
    if narrow:
        return _fma_float32(*(np.asarray(v, np.float64) for v in (a, b, c)), lanes=_any_lanes(a, b, c))
    if _any_lanes(a, b, c):
        each = np.frompyfunc(lambda x, y, z: _fma_one(x, y, z), 3, 1)
        return np.asarray(each(a, b, c)).astype(dtype)
    return dtype.type(_fma_one(a, b, c))


_FITS_FLOAT32 = {np.dtype(t) for t in (np.float16, np.float32, np.bool_, np.int8, np.int16, np.uint8)}


def _any_lanes(*values) -> bool:
    return any(isinstance(v, np.ndarray) and v.ndim for v in values)


def _fma_float32(a: np.ndarray, b: np.ndarray, c: np.ndarray, lanes: bool) -> object:
    """float32 fma through float64: the product of two float32 values is exact there, and the sum is rounded
    once, with its error kept (an exact two-sum); rounding that to float32 is right except at a float32 tie,
    where the error's sign picks the neighbour the exact value lies towards."""
    with np.errstate(all="ignore"):
        product = a * b
        total = product + c
        back = total - product
        error = (product - (total - back)) + (c - back)  # total + error is exactly a * b + c (finite values)
        result = total.astype(np.float32)
        away = np.nextafter(result, np.where(total > result, np.float32(np.inf), np.float32(-np.inf)))
        tie = np.isfinite(total) & (total != result) & (total == (result.astype(np.float64) + away) / 2)
        towards_away = np.sign(error) == np.sign(away.astype(np.float64) - total)
        result = np.where(tie & (error != 0) & towards_away, away, result).astype(np.float32)
    return result if lanes else np.float32(result[()])


def _fma_one(a, b, c) -> float:
    a, b, c = float(a), float(b), float(c)
    if not all(map(math.isfinite, (a, b, c))):
        return a * b + c  # inf and nan as IEEE's fma gives them
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c  # the sign of a zero, as IEEE gives it (-0.0 * 1.0 + -0.0 is -0.0)
    try:
        return float(exact)  # correctly rounded
    except OverflowError:
        return math.copysign(math.inf, exact)


def cube_root(x: object) -> object:
    """`cuda.cbrt(x)`: within an ulp, as libdevice's cbrt (abs(x) ** (1 / 3) is several off); a float32 for a
    float32 or float16, else a float64, as numba-cuda types it."""
    dtype = np.dtype(np.float32) if numba_type(x) in _FITS_FLOAT32 else _FLOAT64
    return np.cbrt(np.asarray(x).astype(dtype)) if _any_lanes(x) else dtype.type(np.cbrt(dtype.type(x)))


_SELECTED = {np.dtype(t) for t in (np.float64, np.float32, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                    np.uint64)}  # fmt: skip


def select(predicate: object, a: object, b: object) -> object:
    """`cuda.selp(p, a, b)`: numba-cuda takes two values of one type among PTX's selp types (no int8, no bool, no
    float with an int); a lane-wise choice."""
    kind_a, kind_b = numba_type(a), numba_type(b)
    if kind_a != kind_b or kind_a not in _SELECTED:
        raise KernelMisuse(f"numba-cuda's selp takes two values of one type (16 to 64-bit integers, float32 or "
                           f"float64), not {kind_a} and {kind_b}; the kernel would not compile")  # fmt: skip
    if isinstance(predicate, np.ndarray):
        return np.where(predicate, a, b)
    return a if predicate else b
