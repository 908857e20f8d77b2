"""`numba.cuda.types` and the type names `numba.cuda` re-exports (float32, int32, void, ...).

They are numba's own types where numba's CPU part is installed (it is a dependency of numba-cuda);
without it, NumPy's scalar types stand in for the numeric ones.
"""

from __future__ import annotations

import types as _pytypes

import numpy as np

_NUMERIC = (
    "bool_ boolean b1 int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp float16 float32 float64 "
    "complex64 complex128 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16 byte"
).split()


def _numba_types() -> _pytypes.ModuleType:
    try:
        from numba import types as numba_types

        return numba_types
    except ImportError:
        stub = _pytypes.ModuleType("numba.types")
        for name in _NUMERIC:
            setattr(stub, name, np.dtype(name.rstrip("_") if name != "byte" else "uint8").type)
        stub.boolean = stub.b1 = stub.bool_ = np.bool_
        return stub


types = _numba_types()


def _type_names() -> dict[str, object]:
    kind = getattr(types, "Type", None)
    names = {}
    for name in dir(types):
        value = getattr(types, name)
        is_type = isinstance(value, kind) if kind is not None else name in _NUMERIC
        if is_type and not name.startswith("_") and name != "bool":
            names[name] = value
    return names


TYPE_NAMES = _type_names()
