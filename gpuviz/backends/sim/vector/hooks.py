"""Every name a vector-flavour kernel calls, bound to one launch (the vector twin of memory.make_hooks)."""

from __future__ import annotations

from functools import partial

import numpy as np

from gpuviz.backends.sim.intrinsics import DeviceValue, call_value
from gpuviz.backends.sim.reference.memory import BIT_FUNCTIONS, grid_hooks
from gpuviz.backends.sim.vector.lanes import UNSET
from gpuviz.backends.sim.vector.memory import item
from gpuviz.backends.sim.vector.ops import operation_hooks
from gpuviz.backends.sim.vector.warp import sync
from gpuviz.core.trace.columns import FENCED


def vector_hooks(memory, warnings: list[str], grid: tuple, block: tuple, partial_syncs: list | None = None,
                 errors=None, syncwarps=None) -> dict:  # fmt: skip
    bdx, bdy, bdz = block
    gdx, gdy, gdz = grid
    return {
        **operation_hooks(BIT_FUNCTIONS, active=lambda: memory.lanes.mask),
        "_gv_UNSET": UNSET,
        "_gv_ld": memory.load,
        "_gv_st": memory.store,
        "_gv_atomic": memory.atomic,
        "_gv_shared": memory.shared,
        "_gv_local": memory.local,
        "_gv_field": memory.field,
        "_gv_item": item,  # a.shape[i % 2]: each lane's item
        "_gv_const": memory.const,
        "_gv_sync": partial(sync, warnings, partial_syncs if partial_syncs is not None else [], errors, syncwarps),
        "_gv_atomic_fn": lambda t, op, line: lambda array, index, *operands: memory.atomic(t, op, array, index,
                                                                                           operands, line),
        "_gv_call": call_value,  # a device function or an atomic passed as a value, called through a variable
        "_gv_device_value": DeviceValue,
        "_gv_print": partial(lane_print, errors),
        **grid_hooks(grid, block),
        "_gv_bdx": bdx, "_gv_bdy": bdy, "_gv_bdz": bdz,
        "_gv_gdx": gdx, "_gv_gdy": gdy, "_gv_gdz": gdz,
        "_gv_warpsize": 32,
        "_gv_lanemask_lt": lambda t: ((np.int64(1) << t.lane) - 1).astype(np.uint32),
        "_gv_fence": fence,
    }  # fmt: skip


def fence(t) -> None:
    """A device-wide threadfence of the active lanes (the reference engine's `fence`, lane-wise)."""
    t.ep = np.where(t.mask, t.ep | FENCED, t.ep).astype(np.int32)  # a new array: the access log keeps the old one


def lane_print(errors, t, *values) -> None:
    """print() in a kernel: a line per active lane, in lane order, each kept with its thread (as the
    reference engine keeps them; on a GPU the lines of different threads come in no set order)."""
    *values, line = values
    for lane in t.lanes().tolist():
        text = " ".join(str(v[lane] if isinstance(v, np.ndarray) and v.shape == (t.n,) else v) for v in values)
        if errors is not None and len(errors.printed) < errors.MAX_ERRORS * 10:
            errors.printed.append({"thread": int(t.gid[lane]), "line": line, "text": text})
        print(text)
