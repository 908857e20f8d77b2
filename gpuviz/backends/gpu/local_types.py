"""The types numba gave a kernel's locals (`acc = 0.0` makes `acc` a float64), read from its typing of the
compiled kernel: the same words the simulator records (`acc`: "float64")."""

from __future__ import annotations

from gpuviz.core.local_types import typemap_locals


def local_types(overload, params: list[str]) -> dict[str, str] | None:
    """Each number-typed local of the kernel (not its parameters, nor gpuviz's own `_gv` names); None where
    numba kept no typing (a kernel loaded from its disk cache, or numba's CUDA simulator)."""
    annotation = getattr(overload, "type_annotation", None)
    if annotation is None:
        return None
    return typemap_locals(annotation.typemap, params)
