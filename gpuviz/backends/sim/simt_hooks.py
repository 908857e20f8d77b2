"""Every name a vector-flavour kernel calls, bound to one launch (the vector twin of memory.make_hooks)."""

from __future__ import annotations

from functools import partial

from gpuviz.backends.sim.memory import BIT_FUNCTIONS, grid_hooks
from gpuviz.backends.sim.simt_lanes import UNSET
from gpuviz.backends.sim.simt_ops import operation_hooks
from gpuviz.backends.sim.simt_warp import sync


def vector_hooks(memory, warnings: list[str], grid: tuple, block: tuple, partial_syncs: list | None = None,
                 errors=None) -> dict:  # fmt: skip
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
        "_gv_const": memory.const,
        "_gv_sync": partial(sync, warnings, partial_syncs if partial_syncs is not None else [], errors),
        **grid_hooks(grid, block),
        "_gv_bdx": bdx, "_gv_bdy": bdy, "_gv_bdz": bdz,
        "_gv_gdx": gdx, "_gv_gdy": gdy, "_gv_gdz": gdz,
        "_gv_warpsize": 32,
    }  # fmt: skip
