"""How long compiling a kernel for the fast path took on this machine (typing and machine code), kept on disk
beside the compiled kernels: the simulator's `auto` engine weighs a long vector-engine run against it."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

KEPT = 16  # the latest compiles kept: a machine's speed, not one kernel's
FILE = "compile_seconds.json"


def remember(folder: Path, seconds: float) -> None:
    """Add one compile's seconds; a folder that cannot be written only loses the figure."""
    times = (_read(folder) + [round(float(seconds), 3)])[-KEPT:]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{FILE}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(times))
        tmp.replace(folder / FILE)
    except OSError:
        pass


def expected(folder: Path) -> float | None:
    """The median of the compiles measured here, or None before the first."""
    times = _read(folder)
    return statistics.median(times) if times else None


def _read(folder: Path) -> list[float]:
    try:
        found = json.loads((folder / FILE).read_text())
    except (OSError, ValueError):
        return []
    if not isinstance(found, list):
        return []
    return [float(t) for t in found if isinstance(t, (int, float)) and 0 <= t < 3600][-KEPT:]
