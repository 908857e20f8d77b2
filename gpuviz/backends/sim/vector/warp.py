"""Barriers and warp collectives for the vectorised engine: operations along the lane axis.

Lanes are laid out block after block, threads in linear order, so warp w of a block is a run of 32
positions. A collective sees the lanes that are active where it is called (as the reference engine
sees the lanes that reached it together); a shuffle from a lane that is not there returns the
caller's own value.
"""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.vector.lanes import truth
from gpuviz.core.launch import format_dims
from gpuviz.core.trace.columns import EPOCH_FIELDS, epoch_field
from gpuviz.instrument.rewrite import BARRIER

WARP_EPOCHS = ((1 << EPOCH_FIELDS["warp"][1]) - 1) << EPOCH_FIELDS["warp"][0]
MAX_PARTIAL_SYNCS = 20_000


def sync(warnings: list[str], partial_syncs: list, errors, t, kind: int, op: str, args: tuple, line: int):
    """The `_gv_sync` hook: a barrier of the block or a collective of the warp."""
    if not t.active:
        return 0
    if kind == BARRIER:
        return _barrier(warnings, errors, t, op, args, line)
    t.charge("collective")
    if op == "syncwarp":
        return _syncwarp(t, partial_syncs)
    return COLLECTIVES[op](t, args)


def _syncwarp(t, partial_syncs: list) -> None:
    """Order memory among the lanes that meet here: their warp epoch goes up (core/trace/columns.py packs it
    into bits 24-30). Lanes left out of a warp's sync are kept for the race analysis, as the
    reference engine keeps them, so their accesses are not taken as ordered."""
    mask, live = t.mask, ~t.exited
    ep = t.ep.astype(np.int64)
    bumped = (ep & ~WARP_EPOCHS) | ((ep + (1 << 24)) & WARP_EPOCHS)
    met = np.bincount(t.warp_key[mask], minlength=t.n_warps)
    alive = np.bincount(t.warp_key[live], minlength=t.n_warps)
    for warp in np.flatnonzero((met > 0) & (met < alive))[: MAX_PARTIAL_SYNCS - len(partial_syncs)]:
        lanes = np.flatnonzero((t.warp_key == warp) & live)
        left = lanes[~mask[lanes]]
        outside = [[int(t.lane[i]), int(epoch_field(ep[i], "warp"))] for i in left]
        first = lanes[mask[lanes]][0]
        partial_syncs.append([int(t.gid[lanes[0]] - t.lane[lanes[0]]), int(epoch_field(ep[first], "block")), outside])
    t.ep = np.where(mask, bumped, ep).astype(np.int32)  # a new array: the access log keeps the old one


def _barrier(warnings: list[str], errors, t, op: str, args: tuple, line: int):
    t.charge("barrier")
    mask = t.mask
    t.ep = t.ep + mask  # a new array: the access log keeps the old one
    blocks = t.n_blocks
    arrived = np.bincount(t.blk[mask], minlength=blocks)
    exited = np.bincount(t.blk[t.exited], minlength=blocks)
    for b in np.flatnonzero(arrived > 0):
        if b in t.warned:
            continue
        where = f"barrier divergence in block {format_dims(t.block_coords[b])}"
        if (exited[b] or arrived[b] + exited[b] < t.per_block) and errors is not None:
            first = np.flatnonzero(mask & (t.blk == b))[0]  # waits at the barrier
            skipped = np.flatnonzero(~mask & (t.blk == b))  # exited, or elsewhere: skipped it
            skipper = skipped[0] if len(skipped) else first
            errors.add_divergence(int(t.gid[skipper]), int(t.gid[first]), line)  # as the reference engine does
        if exited[b]:
            warnings.append(f"{where}: {exited[b]} thread(s) exited without reaching the barrier at line {line} "
                            "(a GPU may hang or give wrong results)")  # fmt: skip
        elif arrived[b] + exited[b] < t.per_block:
            warnings.append(f"{where}: only {arrived[b]} of {t.per_block} threads reached the barrier at line {line}")
        else:
            continue
        t.warned.add(b)
    if op == "sync":
        return None
    predicate = truth(args[0], t.n) & mask if args else np.zeros(t.n, bool)
    count = np.bincount(t.blk[predicate], minlength=blocks)
    per_block = {"count": count, "and": (count == arrived).astype(np.int64), "or": (count > 0).astype(np.int64)}[op]
    return per_block[t.blk]


def _values(value, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(value), (n,))


def _shuffle(source):
    def shuffle(t, args):
        values = _values(args[1], t.n)
        src = source(t.lane, np.asarray(args[2]).astype(np.int64))
        valid = (src >= 0) & (src < 32) & (src < t.warp_len)
        position = np.where(valid, t.warp_base + np.where(valid, src, 0), 0)
        valid &= t.mask[position]
        return np.where(valid, values[position], values)

    return shuffle


def _per_warp_sum(t, chosen: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    sums = np.bincount(t.warp_key[chosen], weights=None if weights is None else weights[chosen],
                       minlength=t.n_warps)  # fmt: skip
    return sums.astype(np.int64)[t.warp_key]


def _bits(t, chosen: np.ndarray) -> np.ndarray:
    return _per_warp_sum(t, chosen, (np.int64(1) << t.lane).astype(np.float64))


def _ballot(t, args):
    return _bits(t, truth(args[1], t.n) & t.mask) & int(args[0])


def _vote(test):
    def vote(t, args):
        yes = _per_warp_sum(t, truth(args[1], t.n) & t.mask)
        return test(yes, _per_warp_sum(t, t.mask)).astype(np.int64)

    return vote


def _eq(t, args):
    values = _values(args[1], t.n)
    lowest = np.full(t.n_warps, np.inf)
    highest = np.full(t.n_warps, -np.inf)
    np.minimum.at(lowest, t.warp_key[t.mask], values[t.mask])
    np.maximum.at(highest, t.warp_key[t.mask], values[t.mask])
    return (lowest == highest).astype(np.int64)[t.warp_key]


COLLECTIVES = {
    "activemask": lambda t, args: _bits(t, t.mask),
    "shfl": _shuffle(lambda lane, src: src % 32),
    "shfl_up": _shuffle(lambda lane, delta: lane - delta),
    "shfl_down": _shuffle(lambda lane, delta: lane + delta),
    "shfl_xor": _shuffle(lambda lane, mask: lane ^ mask),
    "ballot": _ballot,
    "all": _vote(lambda yes, active: yes == active),
    "any": _vote(lambda yes, active: yes > 0),
    "eq": _eq,
}
