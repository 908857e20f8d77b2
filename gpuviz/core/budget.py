"""The one memory budget of the product: how many bytes a recording, a trace being loaded, or an
analysis may take. The engine records within it, the trace reader refuses files that would exceed
it, the launch guard estimates against it. Sized for an 8 GB laptop by default.
"""

from __future__ import annotations

import os

from gpuviz.core.errors import GpuvizError

DEFAULT_MEMORY_BUDGET = 2 << 30  # bytes: 2 GiB
ENVIRONMENT = "GPUVIZ_MEMORY_BUDGET"  # e.g. 4G, 512M, or bytes


def parse_bytes(text: str, what: str = "memory budget") -> int:
    """'2G', '512M', '64K' or a number of bytes; a one-line error otherwise."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    cleaned = text.strip().lower().removesuffix("ib").removesuffix("b")
    scale = units.get(cleaned[-1:], 1)
    number = cleaned[:-1] if cleaned[-1:] in units else cleaned
    try:
        value = int(float(number) * scale)
    except ValueError:
        value = -1
    if value <= 0:
        raise GpuvizError(f"{what} {text!r}: give a size such as 2G, 512M or a number of bytes")
    return value


def default_memory_budget() -> int:
    """The budget from GPUVIZ_MEMORY_BUDGET, else the default."""
    text = os.environ.get(ENVIRONMENT)
    return parse_bytes(text, ENVIRONMENT) if text else DEFAULT_MEMORY_BUDGET


def format_bytes(count: float, digits: int = 1) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if abs(count) < 1024 or unit == "TiB":
            return f"{count:,.0f} {unit}" if unit == "bytes" else f"{count:,.{digits}f} {unit}"
        count /= 1024
    return f"{count:,.{digits}f} TiB"


def format_over(need: float, budget: float) -> tuple[str, str]:
    """`need` and `budget` in words that differ where the numbers do ("2.01 GiB, over ... of 2.00 GiB", never
    "2.0 GiB, over ... of 2.0 GiB")."""
    for digits in (1, 2, 3):
        words = format_bytes(need, digits), format_bytes(budget, digits)
        if words[0] != words[1]:
            return words
    return f"{int(need):,} bytes", f"{int(budget):,} bytes"
