"""The hooks a vectorised kernel calls: numba-typed operators (sim/arithmetic.py), math functions, casts and
bit intrinsics, lane-wise."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.arithmetic import (
    ARITHMETIC,
    binary,
    cast_hooks,
    comparison_hooks,
    min_or_max,
    to_int,
    true_division,
)
from gpuviz.backends.sim.math_functions import math_hooks


def logical_not(value: object) -> object:
    if isinstance(value, np.ndarray):
        return np.logical_not(value)
    return not value


def _to_float(x):
    return x.astype(np.float64) if isinstance(x, np.ndarray) else float(x)


def _round(x, digits=None):
    if digits is not None:
        return np.round(x, digits)
    return to_int(np.round(x))  # half to even, as Python's and numba's; round(nan) does not raise


LANEWISE = {
    "min": min_or_max(False), "max": min_or_max(True), "abs": np.abs, "int": to_int,
    "float": _to_float, "bool": lambda x: x.astype(bool) if isinstance(x, np.ndarray) else bool(x), "round": _round,
}  # fmt: skip
def operation_hooks(bit_functions: dict, active=lambda: True) -> dict:
    """Every `_gv_op_*`, `_gv_fn_*`, `_gv_cast_*` and bit-intrinsic hook of the vector flavour."""
    hooks = {f"_gv_op_{name}": binary(name, active) for name in ARITHMETIC}
    hooks["_gv_op_truediv"] = true_division(active)
    hooks.update(comparison_hooks())
    hooks["_gv_not"] = logical_not
    hooks.update({f"_gv_fn_{name}": fn for name, fn in LANEWISE.items()})
    hooks.update(math_hooks())
    hooks.update(cast_hooks())
    hooks.update(bit_functions)  # the bit intrinsics, fma, cbrt and selp take one value or lanes alike
    return hooks
