"""Syncwarps of part of a warp on a GPU trace: which lanes each left out, and the warp epochs they may have had.

Every lane that passes a syncwarp counts it in its warp epoch, as on the simulator. Lanes of a warp that
did not meet there are listed in the trace's `partial_syncwarps` in the simulator's layout (core/trace/
model.py): if one of them accessed memory at the warp epoch it had then, the race analysis takes the warp's
epochs as untrusted (a race may be over-reported, never missed).

Which lanes met: the lanes whose n-th syncwarp with one mask it was (the rule core/analysis/warp_sync.py
uses), so a syncwarp in each branch of an if/else is one meeting. What epoch a left-out lane had then is
not in the log (lanes of a warp run apart): its syncwarps shared with the meeting's lanes before it bound
it from below, those after it from above, and the block barriers around it too; every epoch between the
bounds is listed.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.trace.columns import epoch_field

WARP = 32
MAX_PARTIAL_SYNCS = 20_000  # listed meetings; past it the trace says "too many" and no warp epoch is trusted


def partial_syncwarps(syncwarps: dict[str, np.ndarray], per_block: int) -> list | str | None:
    """[first thread of the warp, block epoch, [[lane, warp epoch], ...]] for each meeting some lanes of the
    warp were not at; "too many" past MAX_PARTIAL_SYNCS; None when every syncwarp met the whole warp.
    `syncwarps`: thread, epoch (before the mark) and mask of every syncwarp mark, in each thread's order."""
    thread = syncwarps["thread"].astype(np.int64)
    if not len(thread):
        return None
    mask = syncwarps["mask"].astype(np.int64) & 0xFFFFFFFF
    instance = _instances(thread, mask)
    lane = thread % per_block % WARP
    first = thread - lane
    lanes = np.minimum(WARP, per_block - (first % per_block))  # a block's last warp may be partial
    meeting = (first << 40) | (mask << 8) | np.minimum(instance, 255)
    keys, where, met = np.unique(meeting, return_index=True, return_counts=True)
    incomplete = keys[met < lanes[where]]
    if not len(incomplete):
        return None
    warps = np.unique(incomplete >> 40)
    entries: list = []
    for warp in warps.tolist():
        mine = np.flatnonzero(first == warp)
        entries += _warp_entries(warp, int(lanes[mine[0]]), lane[mine], mask[mine], instance[mine],
                                 syncwarps["epoch"][mine])  # fmt: skip
        if len(entries) > MAX_PARTIAL_SYNCS:
            return "too many"
    return entries


def _instances(thread: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per mark: how many syncwarps with its mask its thread had made, this one included."""
    order = np.lexsort((np.arange(len(thread)), mask, thread))
    key = (thread[order] << 32) | mask[order]
    starts = np.r_[True, key[1:] != key[:-1]]
    position = np.arange(len(order))
    count = position - np.maximum.accumulate(np.where(starts, position, 0)) + 1
    instance = np.empty(len(order), np.int64)
    instance[order] = count
    return instance


def _warp_entries(warp: int, lanes: int, lane: np.ndarray, mask: np.ndarray, instance: np.ndarray,
                  epoch: np.ndarray) -> list:  # fmt: skip
    """The entries of one warp's meetings that left lanes out (its marks in each lane's order)."""
    seq = {int(x): [] for x in range(lanes)}  # lane: its meetings (mask, instance) in order
    block = {int(x): [] for x in range(lanes)}  # lane: the block epoch of each
    for x, m, n, e in zip(lane.tolist(), mask.tolist(), instance.tolist(), epoch_field(epoch, "block").tolist()):
        seq[x].append((m, n))
        block[x].append(e)
    at = {x: {key: j for j, key in enumerate(keys)} for x, keys in seq.items()}
    entries, seen = [], set()
    for x, keys in seq.items():
        for p, key in enumerate(keys):
            if key in seen:
                continue
            seen.add(key)
            away = [y for y in seq if key not in at[y]]
            if away:
                here = block[x][p]
                outside = [[y, e % 64] for y in away for e in _epochs_then(seq[x], p, here, at[y], block[y])]
                entries.append([warp, here, outside])
    return entries


def _epochs_then(keys: list, p: int, here: int, theirs: dict, their_blocks: list) -> range:
    """The warp epochs (counts of its syncwarps) a lane may have had at meeting `keys[p]` of another lane:
    at least its count after a meeting they shared before, and after its syncwarps of earlier block
    epochs; at most its count before one they shared after, and after its syncwarps of this block epoch."""
    low = sum(1 for b in their_blocks if b < here)
    high = sum(1 for b in their_blocks if b <= here)
    for key in keys[:p]:
        if key in theirs:
            low = max(low, theirs[key] + 1)
    for key in keys[p + 1 :]:
        if key in theirs:
            high = min(high, theirs[key])
    return range(min(low, high), max(low, high) + 1)
