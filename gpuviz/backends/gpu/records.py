"""Decoding the GPU recorder's buffers into trace columns: pure NumPy, no CUDA (tested on the host)."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.gpu.hooks import EMPTY


def unwrap_times(low: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Full %globaltimer values from their low 32 bits and a full reading taken near each (its
    warp's start): the signed 32-bit difference, exact while the two are under 2^31 ns (2.1 s) apart."""
    delta = (low.astype(np.int64) - (reference.astype(np.int64) & 0xFFFFFFFF)) & 0xFFFFFFFF
    delta = np.where(delta >= 1 << 31, delta - (1 << 32), delta)
    return reference.astype(np.int64) + delta


def thread_times(block_start: np.ndarray, warp_start: np.ndarray | None, warp_end: np.ndarray,
                 block_of_thread: np.ndarray, warp_of_thread: np.ndarray):  # fmt: skip
    """t_start and t_end of every thread (ns after the launch's first reading) and that first reading.

    A thread starts when its warp's lane 0 read the timer where warps recorded their start, else when
    its block's thread 0 did; it ends at its warp's latest reading. So a block spans its warps' first
    to last readings."""
    block_start = block_start.astype(np.int64)
    timed = warp_start is not None
    start = warp_start.astype(np.int64)[warp_of_thread] if timed else block_start[block_of_thread]
    first = int(start.min()) if len(start) else 0
    end = warp_end.astype(np.int64)[warp_of_thread]
    return start - first, np.maximum(end - first, start - first), first


def decode_log(columns: list[np.ndarray], remap: np.ndarray, warps_per_block: int,
               per_block: int) -> dict[str, np.ndarray]:  # fmt: skip
    """The access columns of the logged groups, one row a lane, in slot order (times still as their
    low 32 bits, in "time"). `remap` maps the kernel's array ids to the trace's array positions."""
    element, value, warp, mask, packed, low = columns
    first = np.flatnonzero(packed != EMPTY)
    first = first[remap[(packed[first] >> 2) & 63] >= 0]
    group, lane, rank = _lanes(mask[first])
    slot = first[group] + rank
    group_warp = warp[first].astype(np.int64)[group]
    meta = packed[first][group]
    block, warp_in_block = np.divmod(group_warp, warps_per_block)
    return {
        "thread": (block * per_block + warp_in_block * 32 + lane).astype(np.int32),
        "array": remap[(meta >> 2) & 63].astype(np.int16),
        "index": element[slot].astype(np.int64),
        "kind": (meta & 3).astype(np.int8),
        "line": (meta >> 17).astype(np.int32),
        "epoch": ((meta >> 8) & 511).astype(np.int32),
        "value": value[slot].astype(np.float64),
        "time": low[first][group],
    }


def _lanes(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every set bit of the masks, in mask order then lane order: its mask's row, its lane, and its
    rank among the set bits of its mask (one byte a lane while unpacking)."""
    bits = np.unpackbits(masks.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
    rows, lane = np.nonzero(bits)
    rank = np.cumsum(bits, axis=1, dtype=np.uint8)[rows, lane].astype(np.int64) - 1
    return rows, lane.astype(np.int64), rank


def place_in_time(accesses: dict[str, np.ndarray], warp_start: np.ndarray, warp_of_thread: np.ndarray,
                  first: int) -> dict[str, np.ndarray]:  # fmt: skip
    """The accesses with full times (ns after `first`), in time order: rows of one time keep their log
    order, which within a thread is the order it issued them."""
    reference = warp_start.astype(np.int64)[warp_of_thread[accesses["thread"]]]
    times = unwrap_times(accesses["time"], reference) - first
    order = np.argsort(times, kind="stable")
    placed = {name: column[order] for name, column in accesses.items()}
    placed["time"] = times[order]
    return placed
