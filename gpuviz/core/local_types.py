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


def typemap_locals(typemap: dict, params: list[str]) -> dict[str, str]:
    """numba's typemap (`acc`, `acc.1`, `$12binary_add`, `arg.a`) as one type name per local: the GPU backend's
    kernel and the simulator's fast path are typed by numba alike."""
    found: dict[str, str] = {}
    for key, numba_type in typemap.items():
        name = key.split(".", 1)[0]
        if key.startswith(("$", "arg.", "_gv")) or name in params:
            continue
        text = str(numba_type)
        if text == "bool" or text.startswith(("int", "uint", "float", "complex")):
            found[name] = text  # SSA versions of one local share its unified type
    return found
