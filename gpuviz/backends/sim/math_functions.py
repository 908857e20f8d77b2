"""`math`'s functions as numba-cuda computes them in a kernel, on one value or a batch of lanes: the result in
numba-cuda's type (backends/sim/numba_types.py: math.floor of a float32 is a float32, of an int a float64) and
IEEE's answer where Python's math raises (a GPU never does: sqrt(-1) is nan, log(0) is -inf, exp(1000) is inf,
floor(nan) is nan)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from gpuviz.backends.sim.arithmetic import RESULT_TYPES, UNARY_TYPES, KernelMisuse, numba_type


def _gamma(x: float) -> float:
    if math.isnan(x) or x == math.inf:
        return x
    if x == 0:
        return math.copysign(math.inf, x)  # tgamma(+-0) is +-inf
    if x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan  # a pole at each negative integer
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf if x > 0 or math.floor(x) % 2 == 0 else -math.inf


def _lgamma(x: float) -> float:
    if math.isnan(x):
        return x
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return math.inf
    try:
        return math.lgamma(x)
    except OverflowError:
        return math.inf


def _remainder(x: float, y: float) -> float:
    """IEEE's remainder (the quotient rounded to the nearest integer), which NumPy has no ufunc for."""
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    return math.remainder(x, y)


def _by_value(function: Callable) -> Callable:
    """A Python function of floats applied to each lane (these are rare in kernels)."""
    each = np.frompyfunc(function, function.__code__.co_argcount if hasattr(function, "__code__") else 1, 1)
    return lambda *args: np.asarray(each(*[np.asarray(a, np.float64) for a in args]), np.float64)


UFUNCS: dict[str, Callable] = {
    "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan,
    "atanh": np.arctanh, "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh, "degrees": np.degrees, "exp": np.exp,
    "exp2": np.exp2, "expm1": np.expm1, "fabs": np.fabs, "floor": np.floor, "frexp": np.frexp,
    "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "log": np.log, "log10": np.log10,
    "log1p": np.log1p, "log2": np.log2, "modf": np.modf, "radians": np.radians, "sin": np.sin, "sinh": np.sinh,
    "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc, "atan2": np.arctan2,
    "copysign": np.copysign, "fmod": np.fmod, "hypot": np.hypot, "ldexp": np.ldexp, "nextafter": np.nextafter,
    "pow": np.power, "erf": _by_value(math.erf), "erfc": _by_value(math.erfc), "gamma": _by_value(_gamma),
    "lgamma": _by_value(_lgamma), "remainder": _by_value(_remainder),
}  # fmt: skip
_MISSING = object()


def _result_types(name: str) -> tuple[dict, bool]:
    """numba-cuda's result types of math.<name> (arithmetic's parse of the table), and whether it takes one value."""
    one = f"math.{name}" in UNARY_TYPES
    return (UNARY_TYPES if one else RESULT_TYPES)[f"math.{name}"], one


# one float64 through Python's own math where its answer is NumPy's to the bit (IEEE rounds these exactly); it
# raises at the rest (sqrt(-1)): the ufunc then. Other functions' last bits differ between the two libraries.
_PYTHON_FLOAT_MATH = {"sqrt": math.sqrt, "fabs": math.fabs}


def math_function(name: str) -> Callable:
    """math.<name> for one value or lanes, as numba-cuda computes it."""
    ufunc, python = UFUNCS[name], _PYTHON_FLOAT_MATH.get(name)
    types, one = _result_types(name)

    def apply(*args):
        if python is not None and len(args) == 1 and type(args[0]) in (float, np.float64):
            try:  # the reference engine's common case, at Python's speed
                return np.float64(python(args[0]))
            except (ValueError, OverflowError):
                pass
        key = tuple(numba_type(a) for a in args)
        result_type = types.get(key[0] if one and len(key) == 1 else key, _MISSING)
        if result_type is None:
            shown = ", ".join(str(t) for t in key)
            raise KernelMisuse(f"numba-cuda has no math.{name} of {shown}; the kernel would not compile")
        if result_type is _MISSING:  # not one of numba's number types, or another count of arguments
            result_type = None
        if result_type is not None and result_type.kind != "b" and name != "ldexp":
            args = tuple(_as_type(a, result_type) for a in args)  # computed in the result's type
        elif name == "ldexp":
            args = (_as_type(args[0], result_type), np.asarray(args[1]).astype(np.int32))
        with np.errstate(all="ignore"):
            result = ufunc(*args)
        return _typed(result, result_type)

    return apply


def _as_type(value: object, dtype: np.dtype | None) -> object:
    if dtype is None:
        return value
    return value.astype(dtype, copy=False) if isinstance(value, np.ndarray) else dtype.type(value)


def _typed(result: object, dtype: np.dtype | None) -> object:
    if isinstance(result, tuple):  # modf: both parts in the type; frexp: the mantissa, and an int32 exponent
        mantissa, other = result
        return _typed(mantissa, dtype), _typed(other, dtype if other.dtype.kind == "f" else np.dtype(np.int32))
    if dtype is None:
        return result
    if isinstance(result, np.ndarray) and result.ndim:
        return result.astype(dtype, copy=False)
    return dtype.type(result)


def math_hooks() -> dict[str, Callable]:
    """`_gv_fn_<name>` for each of math's functions numba-cuda compiles."""
    return {f"_gv_fn_{name}": math_function(name) for name in UFUNCS}
