"""What a trace holds, column by column: the file format's name, the per-thread and per-access columns
with their types, the access kinds and the packed barrier epoch; the thread layout every launch derives."""

from __future__ import annotations

import numpy as np

FORMAT = "gpuviz-trace/3"
# /2: meta "param_names" (was "args"), an "analysis" member (per-launch analysis, computed once).
# /3: columns stored narrowed and deflated, layout columns derived on load (core/trace/codec.py).
READABLE_FORMATS = ("gpuviz-trace/1", "gpuviz-trace/2", "gpuviz-trace/3")

THREAD_COLUMNS = {
    "block_idx": np.int32,
    "thread_idx": np.int32,
    "warp": np.int32,
    "lane": np.int32,
    "sm": np.int32,
    "t_start": np.int64,
    "t_end": np.int64,
}

# One memory access a row; rows are stored in the order the accesses happened (the order key).
ACCESS_COLUMNS = {
    "thread": np.int32,  # global linear thread id
    "array": np.int16,  # index into meta["arrays"]
    "index": np.int64,  # element, as a C-order linear index into the array's shape
    "kind": np.int8,  # READ, WRITE or ATOMIC
    "line": np.int32,  # source line in the user's file
    "epoch": np.int32,  # barriers the thread had passed, in three fields (EPOCH_FIELDS below)
    "value": np.float64,  # value read or written (atomics: the value after the update)
}
# Columns a backend may add: "time" is when the access was issued, in meta["time_unit"]; "imag" the
# imaginary part of a complex value ("value" holds its real part; 0 for values of other arrays).
OPTIONAL_ACCESS_COLUMNS = {"time": np.int64, "imag": np.float64}
READ, WRITE, ATOMIC = 0, 1, 2
# "epoch" packs three counters, each kept modulo its width (a wrapped counter makes two accesses look
# unordered, never ordered: the analysis may then over-report a race, never miss one):
# block barriers (syncthreads, and grid syncs) in bits 0-15, grid-wide barriers in bits 16-23,
# whole-warp syncwarps in bits 24-29, and in bit 30 whether the thread had passed a device-wide
# `threadfence` (or `threadfence_system`): the race analysis orders the accesses before it for a block
# that later updates the same element atomically (core/analysis/fence_order.py). A backend that counts
# only block barriers writes plain counts.
EPOCH_FIELDS = {"block": (0, 16), "grid": (16, 8), "warp": (24, 6), "fence": (30, 1)}  # name: (first bit, width)
FENCED = 1 << 30
GRID_EPOCH = 1 << 16


def epoch_field(epoch, name: str):
    """One counter of the packed epoch (works on ints and arrays)."""
    shift, width = EPOCH_FIELDS[name]
    return (epoch >> shift) & ((1 << width) - 1)


def set_epoch(epoch: int, name: str, value: int) -> int:
    """The epoch with one counter set to value (modulo its width)."""
    shift, width = EPOCH_FIELDS[name]
    mask = ((1 << width) - 1) << shift
    return (epoch & ~mask) | ((value << shift) & mask)


def bump_epoch(epoch: int, *names: str) -> int:
    """The epoch with these counters one higher (each wraps within its field, never carrying)."""
    for name in names:
        shift, width = EPOCH_FIELDS[name]
        mask = ((1 << width) - 1) << shift
        epoch = (epoch & ~mask) | ((epoch + (1 << shift)) & mask)
    return epoch
KIND_NAMES = ("read", "write", "atomic")


def thread_layout(grid: tuple[int, int, int], block: tuple[int, int, int], warp_size: int = 32):
    """block_idx, thread_idx, warp and lane of every thread, in global linear order."""
    gx, gy, gz = grid
    bx, by, bz = block
    per_block = bx * by * bz
    n_blocks = gx * gy * gz
    b = np.arange(n_blocks, dtype=np.int64)
    t = np.arange(per_block, dtype=np.int64)
    block_idx = np.stack([b % gx, (b // gx) % gy, b // (gx * gy)], axis=1).astype(np.int32)
    thread_idx = np.stack([t % bx, (t // bx) % by, t // (bx * by)], axis=1).astype(np.int32)
    return (
        np.repeat(block_idx, per_block, axis=0),
        np.tile(thread_idx, (n_blocks, 1)),
        np.tile((t // warp_size).astype(np.int32), n_blocks),
        np.tile((t % warp_size).astype(np.int32), n_blocks),
    )
