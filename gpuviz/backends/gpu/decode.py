"""Decoding the GPU recorder's buffers into trace columns: pure NumPy, no CUDA (tested on the host)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.backends.gpu.hooks import (
    BARRIER,
    BLOCK_MARK,
    FENCE_MARK,
    FIRST_SITE,
    GRID_MARK,
    SAME,
    TIME_MARK,
    UNIT_SHIFT,
    WARP_MARK,
)
from gpuviz.core.trace.columns import EPOCH_FIELDS

NOT_STORED = np.iinfo(np.uint64).max  # a start buffer's mark before the launch: all ones


def known_starts(block_start: np.ndarray, warp_start: np.ndarray | None, warp_end: np.ndarray,
                 warps_per_block: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:  # fmt: skip
    """The block starts and warp starts with a reading wherever the kernel stored none, and which blocks
    stored none. Thread 0 stores its block's start, lane 0 its warp's, as it returns (hooks.py); one that
    leaves the kernel without returning (numba turns a `raise` or a failed `assert` in a kernel into a
    silent return) stores nothing. Such a start becomes its block's earliest recorded reading (a warp's
    start, else a warp's end; a warp end of 0 is one no lane stored), else the launch's earliest."""
    blocks = len(block_start)
    ends = warp_end.reshape(blocks, warps_per_block)
    readings = [np.where(ends == 0, NOT_STORED, ends)]
    if warp_start is not None:
        readings.append(warp_start.reshape(blocks, warps_per_block))
    earliest = np.minimum.reduce([r.min(axis=1) for r in readings])
    missing = block_start == NOT_STORED
    known = np.concatenate([block_start[~missing], *(r[r != NOT_STORED] for r in readings)])
    earliest = np.where(earliest == NOT_STORED, known.min() if len(known) else 0, earliest)
    block_start = np.where(missing, earliest, block_start)
    if warp_start is not None:
        per_warp = np.repeat(block_start, warps_per_block)
        warp_start = np.where(warp_start == NOT_STORED, per_warp, warp_start)
    return block_start, warp_start, missing


def thread_times(block_start: np.ndarray, warp_start: np.ndarray | None, warp_end: np.ndarray,
                 threads_per_block: int) -> tuple[np.ndarray, np.ndarray, int]:  # fmt: skip
    """t_start and t_end of every thread (ns after the launch's first reading) and that first reading.

    A thread starts when its warp's lane 0 read the timer where warps recorded their start, else when
    its block's thread 0 did; it ends at its warp's latest reading. So a block spans its warps' first
    to last readings."""
    timed = warp_start is not None
    if timed:
        start = per_thread(warp_start.astype(np.int64), threads_per_block)
    else:
        start = np.repeat(block_start.astype(np.int64), threads_per_block)
    first = int(start.min()) if len(start) else 0
    start -= first
    end = per_thread(warp_end.astype(np.int64), threads_per_block) - first
    return start, np.maximum(end, start, out=end), first


def per_thread(per_warp: np.ndarray, threads_per_block: int) -> np.ndarray:
    """A value of every warp given to each of its threads (a block's last warp may be partial)."""
    warps_per_block = -(-threads_per_block // 32)
    if threads_per_block % 32 == 0:
        return np.repeat(per_warp, 32)
    lanes = np.full(warps_per_block, 32)
    lanes[-1] = threads_per_block - 32 * (warps_per_block - 1)
    return np.repeat(per_warp, np.tile(lanes, len(per_warp) // warps_per_block))


@dataclass
class SlotLog:
    """The per-thread slots the kernel filled, copied to the host: columns of shape (rows, threads)
    (row k holds every thread's k-th record) and each thread's count of filled slots."""

    code: np.ndarray  # uint16: array id (6 bits) | site (9 bits) << 6 | SAME
    time: np.ndarray  # uint16: low bits of the time in units of 2^UNIT_SHIFT ns
    element: np.ndarray  # uint32 (stale where SAME is set); a time mark's high time bits
    value: np.ndarray
    count: np.ndarray  # uint16, per thread


@dataclass
class PoolLog:
    """Records past a thread's slots, in the order the pool handed them out."""

    thread: np.ndarray  # uint32
    code: np.ndarray  # uint16, without SAME
    time: np.ndarray  # uint32: low bits of the time in units
    element: np.ndarray  # uint32
    value: np.ndarray
    rank: np.ndarray  # int64: within one thread, the order its records were handed out


HALF32 = 1 << 31


def decode_records(slots: SlotLog, pool: PoolLog, start_units: np.ndarray,
                   time_bits: int = 16) -> dict[str, np.ndarray]:  # fmt: skip
    """Every access the log holds, thread by thread in the order each issued them (slot rows first,
    then the pool): thread, code (array id | site << 6), element, value, time (units) and epoch (the
    barriers the thread passed before it, packed as core/trace/columns.py's EPOCH_FIELDS). `start_units`
    is each thread's warp's start reading in units: a thread's first record follows it by less than
    the layout's guard, as each record follows the last; slot times keep `time_bits` low bits. Also
    the syncwarp marks, as `syncwarps`: thread, epoch before it and mask of each, in each thread's
    order (backends/gpu/meetings.py finds the lanes each left out)."""
    n = slots.count.size
    count = slots.count.astype(np.int64)
    previous = np.arange(n, dtype=np.int64) & 0xFFFFFFFF  # its global id, in 32 bits as the recorder keeps it
    now = start_units.astype(np.int64).copy()
    epoch = np.zeros(n, np.int32)
    rows, syncs = [], []
    for k in range(slots.code.shape[0]):
        live = np.flatnonzero(count > k)
        code = slots.code[k, live].astype(np.int64)
        site = (code >> 6) & 511
        now[live] = _restore_time(now[live], slots.time[k, live], site, slots.element[k, live], time_bits)
        access = site >= FIRST_SITE
        who = live[access]
        element = np.where(code[access] & SAME, previous[who], slots.element[k, who])
        previous[who] = element
        rows.append((who, code[access] & (SAME - 1), element, slots.value[k, who], now[who], epoch[who]))
        barrier = site == BARRIER
        marks = live[barrier]
        syncs.append(_syncwarp_marks(marks, code[barrier], slots.element[k, marks], epoch[marks], k))
        passed = barriers_passed(code[barrier])
        epoch[marks] = advance(epoch[marks], passed)
    pool_rows, pool_syncs = _pool_rows(pool, now, epoch)
    rows.append(pool_rows)
    syncs.append(pool_syncs)
    names = ("thread", "code", "element", "value", "time", "epoch")
    decoded = {name: np.concatenate([row[i] for row in rows]) for i, name in enumerate(names)}
    return decoded | {"syncwarps": _in_thread_order(syncs)}


def _syncwarp_marks(thread: np.ndarray, code: np.ndarray, mask: np.ndarray, epoch: np.ndarray, order) -> tuple:
    """The syncwarp marks among some barrier marks: (thread, epoch before, mask, order within the thread)."""
    warp = (code.astype(np.int64) & 63) == WARP_MARK
    order = np.broadcast_to(np.asarray(order, np.int64), thread.shape)
    return (thread[warp].astype(np.int64), epoch[warp].astype(np.int64), mask[warp].astype(np.int64), order[warp])


def _in_thread_order(syncs: list[tuple]) -> dict[str, np.ndarray]:
    thread, epoch, mask, order = (np.concatenate([s[i] for s in syncs]) for i in range(4))
    by = np.lexsort((order, thread))
    return {"thread": thread[by], "epoch": epoch[by], "mask": mask[by]}


def _restore_time(before: np.ndarray, low: np.ndarray, site: np.ndarray, element: np.ndarray,
                  time_bits: int = 16) -> np.ndarray:  # fmt: skip
    """Full times (units) of one record a thread from their low `time_bits` bits and each thread's
    previous time: the signed difference, exact under half of what the bits hold; a time mark carries
    its high bits (their low 32: %globaltimer counts from 1970, more than 2^48 units)."""
    low = low.astype(np.int64)
    half, mask = 1 << (time_bits - 1), (1 << time_bits) - 1
    full = before + ((low - before + half) & mask) - half
    mark = site == TIME_MARK
    if mark.any():  # a mark holds the low 32 of the high bits: the rest follow the previous time
        high_before = before[mark] >> time_bits
        held = element[mark].astype(np.int64)
        high = high_before + ((held - high_before + HALF32) & 0xFFFFFFFF) - HALF32
        full[mark] = (high << time_bits) | low[mark]
    return full


def barriers_passed(code: np.ndarray) -> dict[str, np.ndarray]:
    """Per barrier mark, which epoch fields it moves on (0 or 1 each): a block barrier the block's
    counter; a grid sync the grid's and the block's (as the simulator counts it); a syncwarp the warp's,
    whatever its mask (each lane that meets counts it, as on the simulator; the lanes a mask leaves out
    are found by backends/gpu/meetings.py); a device-wide fence sets the fence flag."""
    kind = code.astype(np.int64) & 63
    return {"block": ((kind == BLOCK_MARK) | (kind == GRID_MARK)).astype(np.int64),
            "grid": (kind == GRID_MARK).astype(np.int64), "warp": (kind == WARP_MARK).astype(np.int64),
            "fence": (kind == FENCE_MARK).astype(np.int64)}  # fmt: skip


def advance(epoch: np.ndarray, passed: dict[str, np.ndarray]) -> np.ndarray:
    """Packed epochs with each counter moved on by `passed[name]`, each wrapping within its field; the
    fence flag is set (once set, it stays)."""
    out = epoch.astype(np.int64)
    for name, steps in passed.items():
        shift, width = EPOCH_FIELDS[name]
        if name == "fence":
            out |= (np.asarray(steps) > 0).astype(np.int64) << shift
            continue
        field_mask = ((1 << width) - 1) << shift
        out = (out & ~field_mask) | ((out + (steps << shift)) & field_mask)
    return out.astype(np.int32)


def _pool_rows(pool: PoolLog, now: np.ndarray, epoch: np.ndarray) -> tuple[tuple, tuple]:
    """The pool's accesses, after each thread's slot records; its barrier marks still count. Also its
    syncwarp marks (as _syncwarp_marks gives them, after every slot record)."""
    thread = pool.thread.astype(np.int64)
    order = np.lexsort((pool.rank, thread))
    thread, code = thread[order], pool.code[order].astype(np.int64)
    site = (code >> 6) & 511
    low = pool.time[order].astype(np.int64)
    time = now[thread] + ((low - now[thread] + HALF32) & 0xFFFFFFFF) - HALF32
    barrier = site == BARRIER
    steps = barriers_passed(code)
    first_of_thread = np.searchsorted(thread, thread)
    before = {}
    for name, step in steps.items():
        step = np.where(barrier, step, 0)
        total = np.cumsum(step) - step  # barriers before each record, all threads together ...
        before[name] = total - total[first_of_thread]  # ... less those of the threads before it
    passed = advance(epoch[thread], before)
    access = site >= FIRST_SITE
    syncs = _syncwarp_marks(thread[barrier], code[barrier], pool.element[order][barrier], passed[barrier],
                            1 << 40 | np.flatnonzero(barrier))  # fmt: skip
    return (thread[access], code[access], pool.element[order][access].astype(np.int64),
            pool.value[order][access], time[access], passed[access]), syncs  # fmt: skip


def accesses_of(records: dict[str, np.ndarray], remap: np.ndarray, sites: np.ndarray,
                initial: dict[int, np.ndarray]) -> dict[str, np.ndarray]:  # fmt: skip
    """Trace columns from decoded records: `remap` maps the kernel's array ids to the trace's array
    positions (-1: not traced), `sites` (line, kind) by site id, `initial` each unlogged array id's
    flat inputs (its loads saw those: the kernel never writes it)."""
    aid = records["code"] & 63
    keep = remap[aid] >= 0
    aid, site = aid[keep], (records["code"][keep] >> 6) & 511
    element = records["element"][keep]
    logged = records["value"][keep]
    with np.errstate(invalid="ignore", over="ignore"):  # unwritten values of read-only arrays: replaced below
        value = np.real(logged).astype(np.float64)
    imag = np.imag(logged).astype(np.float64) if logged.dtype.kind == "c" else None
    for k, inputs in initial.items():
        mine = np.flatnonzero(aid == k)
        if inputs.dtype.names:  # records: a whole record is no one number (the simulator logs NaN too)
            value[mine] = np.nan
            continue
        seen = inputs[np.clip(element[mine], 0, max(inputs.size - 1, 0))] if inputs.size else np.full(len(mine), np.nan)
        value[mine] = np.real(seen)
        if inputs.dtype.kind == "c":
            imag = np.zeros(len(value)) if imag is None else imag
            imag[mine] = np.imag(seen)
    return {
        "thread": records["thread"][keep].astype(np.int32),
        "array": remap[aid].astype(np.int16),
        "index": element,
        "kind": sites[site, 1].astype(np.int8),
        "line": sites[site, 0].astype(np.int32),
        "epoch": records["epoch"][keep],
        "value": value,
        "time": records["time"][keep],
    } | ({"imag": imag} if imag is not None else {})  # complex arrays: trace columns' "imag"


def place_in_time(accesses: dict[str, np.ndarray], thread_start: np.ndarray, first: int) -> dict[str, np.ndarray]:
    """The accesses with times in ns after `first`, in time order: rows of one time keep their order,
    which within a thread is the order it issued them. Times were stored in units of 2^UNIT_SHIFT ns:
    one that falls before its thread's start (`thread_start`, ns after `first`) by less than a unit
    is its thread's start."""
    times = (accesses["time"].astype(np.int64) << UNIT_SHIFT) - first
    times = np.maximum(times, thread_start[accesses["thread"]])
    order = np.argsort(times, kind="stable")
    placed = {name: column[order] for name, column in accesses.items()}
    placed["time"] = times[order]
    return placed


def final_writes_last(accesses: dict[str, np.ndarray], finals: dict[int, np.ndarray]) -> dict[str, np.ndarray]:
    """Among writes to one element that share the last time (within the timer's step, so their order
    is unknown), put last one that wrote the value memory kept: a replay then ends where the run
    did. `finals` holds the flat contents after the launch by trace array position; rows of one
    thread never change their order."""
    writes = np.flatnonzero(accesses["kind"] >= 1)
    if not len(writes):
        return accesses
    key = accesses["array"][writes].astype(np.int64) << 40 | accesses["index"][writes]
    order = writes[np.lexsort((writes, key))]  # by element, then by time order
    key = accesses["array"][order].astype(np.int64) << 40 | accesses["index"][order]
    last = np.flatnonzero(np.r_[key[1:] != key[:-1], True])
    rows = {name: column.copy() for name, column in accesses.items()}
    for at in last[_tied_before(last, key, accesses["time"][order])]:
        _swap_in_final(rows, order, at, key, finals)
    return rows


def _tied_before(last: np.ndarray, key: np.ndarray, time: np.ndarray) -> np.ndarray:
    """Which last writes have an earlier write of the same element at the same time."""
    before = np.maximum(last - 1, 0)
    return (last > 0) & (key[before] == key[last]) & (time[before] == time[last])


def _swap_in_final(rows: dict, order: np.ndarray, at: int, key: np.ndarray, finals: dict[int, np.ndarray]) -> None:
    array, index = int(rows["array"][order[at]]), int(rows["index"][order[at]])
    final = finals.get(array)
    if final is None or not 0 <= index < final.size or _holds(rows, order[at], final[index]):
        return
    k = at
    while k > 0 and key[k - 1] == key[at] and rows["time"][order[k - 1]] == rows["time"][order[at]]:
        k -= 1
        a, b = order[k], order[at]
        if _holds(rows, a, final[index]) and _may_swap(rows["thread"], a, b):
            for column in rows.values():
                column[a], column[b] = column[b], column[a]
            return


def _holds(rows: dict, row: int, final) -> bool:
    """Whether a write's logged value is the one memory kept (both parts of a complex one)."""
    imag = rows["imag"][row] if "imag" in rows else 0.0
    return bool(rows["value"][row] == np.real(final) and imag == np.imag(final))


def _may_swap(thread: np.ndarray, a: int, b: int) -> bool:
    """Rows a < b of two threads can trade places when neither thread has a row between them."""
    between = thread[a + 1 : b]
    return thread[a] != thread[b] and not (between == thread[a]).any() and not (between == thread[b]).any()
