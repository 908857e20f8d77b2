"""The types numba gave a kernel's locals (`acc = 0.0` makes `acc` a float64), read from its typing of the
compiled kernel: the same words the simulator records (`acc`: "float64")."""

from __future__ import annotations


def local_types(overload, params: list[str]) -> dict[str, str] | None:
    """Each number-typed local of the kernel (not its parameters, nor gpuviz's own `_gv` names); None where
    numba kept no typing (a kernel loaded from its disk cache, or numba's CUDA simulator)."""
    annotation = getattr(overload, "type_annotation", None)
    if annotation is None:
        return None
    return typemap_locals(annotation.typemap, params)


def typemap_locals(typemap: dict, params: list[str]) -> dict[str, str]:
    """numba's typemap (`acc`, `acc.1`, `$12binary_add`, `arg.a`) as one type name per local."""
    found: dict[str, str] = {}
    for key, numba_type in typemap.items():
        name = key.split(".", 1)[0]
        if key.startswith(("$", "arg.", "_gv")) or name in params:
            continue
        text = str(numba_type)
        if text == "bool" or text.startswith(("int", "uint", "float", "complex")):
            found[name] = text  # SSA versions of one local share its unified type
    return found
