"""The types of a kernel's locals as numba gives them (`acc = 0.0` makes `acc` a float64 even in a float32
kernel), recorded by the run in meta["local_types"]: one type name per local."""

from __future__ import annotations

import numpy as np


def bits(meta: dict, name: str) -> int | None:
    """The width of a local's type; None where the run did not record the kernel's locals."""
    types = meta.get("local_types")
    if types is None:
        return None
    if name not in types:
        raise ValueError(f"local {name}: the kernel's locals are {', '.join(sorted(types)) or 'none'}")
    return int(np.dtype(types[name]).itemsize * 8)


def float_locals(meta: dict) -> str:
    """The kernel's floating-point locals and their types, "acc float64, x float32"."""
    types = meta.get("local_types")
    if types is None:
        return "not recorded"
    floats = [f"{name} {kind}" for name, kind in types.items() if kind.startswith(("float", "complex"))]
    return ", ".join(floats) or "none"
