"""Numbers as people write them: 1,048,576 and 4.5, never 1.04858e+06 (captions, call-outs, legends,
verdicts, the views' words and the command line's)."""

from __future__ import annotations

import math


def number(value: float | int | complex) -> str:
    """Thousands separated, no exponent for ordinary magnitudes, at most four decimals, trailing zeros
    dropped; very small or very large non-integers keep three significant digits. Integers of any size
    (NumPy's too, exactly: a float would round a 64-bit one), bools as 0 and 1, complex as 2-0.5j."""
    kind = getattr(getattr(value, "dtype", None), "kind", "")
    if isinstance(value, complex) or kind == "c":
        return _complex(complex(value))
    if isinstance(value, bool | int) or kind in ("b", "i", "u"):
        return f"{int(value):,}"
    value = float(value)
    if math.isnan(value):
        return "not set"
    if math.isinf(value):
        return "infinity" if value > 0 else "minus infinity"
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if 1e-3 <= abs(value) < 1e15:
        text = f"{value:,.4f}".rstrip("0").rstrip(".")
        return text if text not in ("0", "-0") else f"{value:.3g}"
    return f"{value:.3g}"


def _complex(value: complex) -> str:
    if value.imag == 0:
        return number(value.real)
    return f"{number(value.real)}{'-' if value.imag < 0 else '+'}{number(abs(value.imag))}j"
