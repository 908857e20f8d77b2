"""Operations the simulator's hooks perform for intrinsics: atomics, bit functions, cooperative
groups, dynamic shared memory and functions passed as values."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.arithmetic import cube_root, fused_multiply_add, select
from gpuviz.backends.sim.bits import BIT_INTRINSICS


def _inc(old, limit):
    return 0 if old >= limit else old + 1


def _dec(old, limit):
    return limit if (old == 0 or old > limit) else old - 1


ATOMIC_OPS = {
    "add": lambda old, v: old + v,
    "sub": lambda old, v: old - v,
    "and_": lambda old, v: old & v,
    "or_": lambda old, v: old | v,
    "xor": lambda old, v: old ^ v,
    "max": lambda old, v: v if v > old else old,
    "min": lambda old, v: v if v < old else old,
    "nanmax": lambda old, v: np.fmax(old, v),
    "nanmin": lambda old, v: np.fmin(old, v),
    "inc": _inc,
    "dec": _dec,
    "exch": lambda old, v: v,
    "cas": lambda old, expected, v: v if old == expected else old,
}
ATOMIC_OPS["compare_and_swap"] = ATOMIC_OPS["cas"]  # on element 0: the rewrite passes the index


class DeviceValue:
    """A device function passed as a value (`cast_func` in numba's atomics tests): `_gv_call` runs it."""

    __slots__ = ("generator_function",)

    def __init__(self, generator_function):
        self.generator_function = generator_function


def call_value(function, t, *args, **kwargs):
    """A call through a variable: a device function runs as one (it may pause), anything else is called."""
    if isinstance(function, DeviceValue):
        return (yield from function.generator_function(t, *args, **kwargs))
    return function(*args, **kwargs)


def dynamic_view(block_arrays: dict, shared_bytes: int, dtype: np.dtype) -> np.ndarray:
    """The block's dynamic shared memory seen as `dtype`: declarations alias, as on a GPU (their
    reads are not checked for initialisation: a write through one view is a write to all)."""
    buffer = block_arrays.get("<dynamic>")
    if buffer is None:
        buffer = block_arrays["<dynamic>"] = np.zeros(shared_bytes, np.uint8)
    usable = shared_bytes // dtype.itemsize * dtype.itemsize
    return buffer[:usable].view(dtype)


class _GridGroup:
    """What cuda.cg.this_grid() gives: its .sync() is rewritten into a grid-wide barrier."""


GRID_GROUP = _GridGroup()


BIT_FUNCTIONS = {  # each takes one value or a lane array: both engines use them as they are
    "_gv_noop": lambda *args: None,
    **BIT_INTRINSICS,  # at the operand's width, for one value or a lane array
    "_gv_fma": fused_multiply_add,
    "_gv_cbrt": cube_root,
    "_gv_selp": select,
}
