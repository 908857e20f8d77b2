"""Barriers and warp collectives for the vectorised engine: operations along the lane axis.

Lanes are laid out block after block, threads in linear order, so warp w of a block is a run of 32
positions. A collective sees the lanes that are active where it is called (as the reference engine
sees the lanes that reached it together). A shuffle whose source lane is past the warp's ends returns
the caller's own value; from a lane that is not there (exited, or past a partial warp) it returns 0,
as an NVIDIA H200 did in every recorded case (CUDA leaves that value undefined). Operand types follow
numba-cuda (backends/sim/collective_types.py).
"""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.arithmetic import KernelMisuse
from gpuviz.backends.sim.collective_types import barrier_truth, match_keys, refusal
from gpuviz.backends.sim.syncwarps import SyncwarpLog, mask_of
from gpuviz.backends.sim.vector.lanes import truth
from gpuviz.core.launch import format_dims
from gpuviz.core.trace.columns import EPOCH_FIELDS, epoch_field
from gpuviz.instrument.rewrite import BARRIER

WARP_EPOCHS = ((1 << EPOCH_FIELDS["warp"][1]) - 1) << EPOCH_FIELDS["warp"][0]
MAX_PARTIAL_SYNCS = 20_000


def sync(warnings: list[str], partial_syncs: list, errors, syncwarps: SyncwarpLog | None, t, kind: int, op: str,
         args: tuple, line: int):  # fmt: skip
    """The `_gv_sync` hook: a barrier of the block or a collective of the warp."""
    if not t.active:
        return 0
    refused = refusal(op, args)
    if refused:  # the reference engine words it with the thread and line, as numba would refuse to compile
        raise KernelMisuse(refused)
    if kind == BARRIER:
        return _barrier(warnings, errors, t, op, args, line)
    t.charge("collective")
    if op == "syncwarp":
        if syncwarps is not None:
            _note_meetings(t, syncwarps, args, line)
        return _syncwarp(t, partial_syncs)
    return COLLECTIVES[op](t, args)


def _note_meetings(t, syncwarps: SyncwarpLog, args: tuple, line: int) -> None:
    """Count this syncwarp for the lanes here, by mask, and note each warp where lanes of the mask that had
    not exited were elsewhere (backends/sim/syncwarps.py judges them when the launch ends)."""
    here = np.flatnonzero(t.mask)
    masks = _masks(args, t.n)
    for mask in np.unique(masks[here]).tolist():
        mine = np.zeros(t.n, bool)
        mine[here[masks[here] == mask]] = True
        syncwarps.count(mask, t.gid[mine])
        named = ((np.int64(mask) >> t.lane) & 1).astype(bool)
        elsewhere = named & ~t.exited & ~mine
        met = np.bincount(t.warp_key[mine], minlength=t.n_warps)
        away = np.bincount(t.warp_key[elsewhere], minlength=t.n_warps)
        for warp in np.flatnonzero((met > 0) & (away > 0)).tolist():
            in_warp = t.warp_key == warp
            some = int(np.argmax(in_warp))
            first = int(t.gid[some] - t.lane[some])  # the warp's first thread
            syncwarps.meeting(first, mask, t.gid[mine & in_warp], t.gid[elsewhere & in_warp], line)


def _masks(args: tuple, n: int) -> np.ndarray:
    """Each lane's syncwarp mask (lanes may pass different ones)."""
    if not args or not isinstance(args[0], np.ndarray):
        return np.full(n, mask_of(args), np.int64)
    return np.broadcast_to(args[0].astype(np.int64) & 0xFFFFFFFF, (n,))


def _syncwarp(t, partial_syncs: list) -> None:
    """Order memory among the lanes that meet here: their warp epoch goes up (core/trace/columns.py packs it
    into bits 24-29). Lanes left out of a warp's sync are kept for the race analysis, as the
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
    t.barrier_clock()
    mask = t.mask
    t.ep = t.ep + mask  # a new array: the access log keeps the old one
    blocks = t.n_blocks
    arrived = np.bincount(t.blk[mask], minlength=blocks)
    exited = np.bincount(t.blk[t.exited], minlength=blocks)
    short = (arrived > 0) & ((exited > 0) | (arrived + exited < t.per_block))
    for b in np.flatnonzero(short):  # the message is built for diverging blocks only: barriers are hot
        if b not in t.warned:
            _diverged(warnings, errors, t, int(b), int(arrived[b]), int(exited[b]), line)
    if op == "sync":
        return None
    predicate = truth(barrier_truth(args[0]), t.n) & mask if args else np.zeros(t.n, bool)
    count = np.bincount(t.blk[predicate], minlength=blocks)
    per_block = {"count": count, "and": (count == arrived).astype(np.int64), "or": (count > 0).astype(np.int64)}[op]
    return per_block[t.blk]


def _diverged(warnings: list[str], errors, t, b: int, arrived: int, exited: int, line: int) -> None:
    """Block b of the batch reached a barrier with some of its threads missing: an error and a warning."""
    gx, gy, _ = t.config.grid
    number = int(t.blocks[b])
    where = f"barrier divergence in block {format_dims((number % gx, number // gx % gy, number // (gx * gy)))}"
    if errors is not None:
        first = np.flatnonzero(t.mask & (t.blk == b))[0]  # waits at the barrier
        skipped = np.flatnonzero(~t.mask & (t.blk == b))  # exited, or elsewhere: skipped it
        skipper = skipped[0] if len(skipped) else first
        errors.add_divergence(int(t.gid[skipper]), int(t.gid[first]), line)  # as the reference engine does
    if exited:
        warnings.append(f"{where}: {exited} thread(s) exited without reaching the barrier at line {line} "
                        "(a GPU may hang or give wrong results)")  # fmt: skip
    else:
        warnings.append(f"{where}: only {arrived} of {t.per_block} threads reached the barrier at line {line}")
    t.warned.add(b)


def _values(value, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(value), (n,))


def _shuffle(source):
    def shuffle(t, args):
        values = _values(args[1], t.n)
        src = source(t.lane, np.asarray(args[2]).astype(np.int64))
        in_warp = (src >= 0) & (src < 32)
        there = in_warp & (src < t.warp_len)
        position = np.where(there, t.warp_base + np.where(there, src, 0), 0)
        there &= t.mask[position]
        absent = np.zeros((), values.dtype)  # a lane that is not there gives 0 (see the module's note)
        return np.where(there, values[position], np.where(in_warp, absent, values))

    return shuffle


def _per_warp_sum(t, chosen: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    sums = np.bincount(t.warp_key[chosen], weights=None if weights is None else weights[chosen],
                       minlength=t.n_warps)  # fmt: skip
    return sums.astype(np.int64)[t.warp_key]


def _bits(t, chosen: np.ndarray) -> np.ndarray:
    """Per lane, the bits of the lanes of its warp that are chosen (float weights: exact below 2^53)."""
    return _per_warp_sum(t, chosen, (np.int64(1) << t.lane).astype(np.float64))


def _int32(bits: np.ndarray) -> np.ndarray:
    """Lane masks as numba types ballot_sync and match_*_sync: int32, lane 31 the sign bit."""
    return (np.asarray(bits).astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


def _ballot(t, args):
    return _int32(_bits(t, truth(args[1], t.n) & t.mask) & _mask_arg(args[0]))


def _mask_arg(mask) -> object:
    return np.asarray(mask).astype(np.int64) if isinstance(mask, np.ndarray) else int(mask)


def _vote(test):
    """all/any/eq over the lanes of each lane's own mask that are here (numba-cuda's vote.sync with the member
    mask: two half-warps voting with their own masks get two answers)."""

    def vote(t, args):
        mask = _mask_arg(args[0])
        yes = _bits(t, truth(args[1], t.n) & t.mask) & mask
        return test(yes, _bits(t, t.mask) & mask)

    return vote


def _same_ids(t, values: np.ndarray) -> np.ndarray:
    """Per active lane, a number shared exactly by the active lanes of its warp holding the same value."""
    active = t.lanes()
    _, value_ids = np.unique(values[active], return_inverse=True)
    _, group = np.unique(t.warp_key[active] * (int(value_ids.max(initial=0)) + 1) + value_ids, return_inverse=True)
    ids = np.full(t.n, -1, np.int64)
    ids[active] = group
    return ids


def _one_value(t, values) -> np.ndarray:
    """Per lane: whether every active lane of its warp holds the same value (as match_all_sync compares)."""
    ids = _same_ids(t, values)
    active = t.lanes()
    _, first = np.unique(ids[active], return_index=True)
    groups = np.bincount(t.warp_key[active[first]], minlength=t.n_warps)  # distinct values per warp
    return (groups <= 1)[t.warp_key]


def _match_any(t, args):
    """Each lane: the lanes of its mask, in its warp, holding the same value (its bits, as numba converts it)."""
    return _int32(_same_value_bits(t, _values(match_keys(args[1]), t.n)) & _mask_arg(args[0]))


def _match_all(t, args):
    """(the lanes of its mask that are here, True) where every such lane holds the lane's value, else (0, False)."""
    mask = _mask_arg(args[0])
    here = _bits(t, t.mask) & mask
    same = (_same_value_bits(t, _values(match_keys(args[1]), t.n)) & mask) == here
    return _int32(np.where(same, here, 0)), same


def _same_value_bits(t, values) -> np.ndarray:
    """Per active lane, the bits of the lanes of its warp (active ones) holding the same value."""
    ids = _same_ids(t, values)
    active = t.mask
    weights = (np.int64(1) << t.lane[active]).astype(np.float64)
    per_group = np.bincount(ids[active], weights=weights).astype(np.int64)
    bits = np.zeros(t.n, np.int64)
    bits[active] = per_group[ids[active]]
    return bits


COLLECTIVES = {
    "activemask": lambda t, args: _bits(t, t.mask).astype(np.uint32),
    "shfl": _shuffle(lambda lane, src: src % 32),
    # shfl.sync takes the low 5 bits of the offset (PTX: bval[4:0] = b[4:0]): -1 is 31, 33 is 1
    "shfl_up": _shuffle(lambda lane, delta: lane - (delta & 31)),
    "shfl_down": _shuffle(lambda lane, delta: lane + (delta & 31)),
    "shfl_xor": _shuffle(lambda lane, mask: lane ^ (mask & 31)),
    "ballot": _ballot,
    "all": _vote(lambda yes, here: yes == here),
    "any": _vote(lambda yes, here: yes != 0),
    "eq": _vote(lambda yes, here: (yes == 0) | (yes == here)),  # the predicates' truth, not the values
    "match_any": _match_any,
    "match_all": _match_all,
}
