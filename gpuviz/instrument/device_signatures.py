"""A device function's declared signature (`@cuda.jit("float32(float64)", device=True)`): numba-cuda converts each
number argument to its declared type on the way in and the result to the declared return type on the way out, so
`"int32(float32, float32)"` returning `a / b` gives 3 for 7 / 2. The simulator's rewrite casts there too."""

from __future__ import annotations

CASTABLE = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
            "complex64", "complex128", "boolean")  # fmt: skip


def declared_types(device: object) -> tuple[list[str | None], str | None] | None:
    """Per argument the number type it is converted to (None: an array or a type left as given), and the return
    type's; None without exactly one signature (numba picks among several by the arguments, as gpuviz leaves)."""
    signatures = getattr(device, "signatures", ())
    if len(signatures) != 1:
        return None
    try:
        from numba.core import sigutils

        arguments, returned = sigutils.normalize_signature(signatures[0])
    except Exception:  # numba's CPU part missing, or a signature numba itself would refuse
        return None
    return [_number_type(a) for a in arguments], _number_type(returned)


def _number_type(kind: object) -> str | None:
    name = "boolean" if str(kind) == "bool" else str(kind)
    return name if name in CASTABLE else None
