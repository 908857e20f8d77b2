"""Numbers as people write them: 1,048,576 and 4.5, never 1.04858e+06 (captions, call-outs, legends)."""

from __future__ import annotations

import math


def number(value: float | int) -> str:
    """Thousands separated, no exponent for ordinary magnitudes, at most four decimals, trailing zeros
    dropped; very small or very large non-integers keep three significant digits."""
    value = float(value) if not isinstance(value, int) else value
    if isinstance(value, int):
        return f"{value:,}"
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
