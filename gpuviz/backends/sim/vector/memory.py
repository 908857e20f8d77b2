"""Memory for the vectorised engine: gathers, scatters, ordered atomics, shared and local arrays,
and the access log in typed columns.

A load gathers one element per active lane; a store scatters them, all lanes after all reads of the
statement (so a read-modify-write by many lanes loses updates, as lockstep hardware does; when two
lanes store to one element, the higher lane's value stays). Atomics run in lane order, one after
another per element, and return each lane's old value.
"""

from __future__ import annotations

import itertools

import numpy as np

from gpuviz.backends.sim.arithmetic import KernelMisuse, complex_store_refusal, float_to_integer, numba_type
from gpuviz.backends.sim.collective_types import atomic_index, atomic_refusal
from gpuviz.backends.sim.reference.memory import ATOMIC_OPS, MAX_LOCAL, ArrayTable, _shape_dtype
from gpuviz.backends.sim.vector.sharing import BlocksShareMemory
from gpuviz.backends.sim.vector.warp_requests import RequestNumbering
from gpuviz.core.dtypes import to_dtype
from gpuviz.core.trace.columns import ACCESS_COLUMNS, ATOMIC, READ, WRITE
from gpuviz.instrument.vector_rewrite import ReferenceEngineNeeded, VectorUnsupported


class LaneFault(ReferenceEngineNeeded):
    """A lane did something a GPU would fault on; the reference engine reruns the launch to word it."""


class OutOfBounds(LaneFault):
    """An index past an array's end: lanes of global arrays stop with a memory error each (as on the
    reference engine); elsewhere (shared and local arrays) the reference engine reruns the launch."""


class SharedArray:
    """One `cuda.shared.array` declaration: a copy per block of the batch (axis 0)."""

    def __init__(self, data: np.ndarray, aid: int | None):
        self.data, self.aid = data, aid
        self.written = np.zeros(data.shape, bool)  # shared memory starts uninitialised, as on a GPU
        self.complete = False  # every element written: no more reads to check

    def unwritten(self, key) -> np.ndarray | None:
        """Which of the lanes' reads find an element no thread of the block wrote yet (a memory error
        each, as the reference engine lists them); None once every element was written."""
        return None if self.complete else ~self.written[key]

    def mark_written(self, key) -> None:
        if not self.complete:
            self.written[key] = True
            self.complete = bool(self.written.all())

    shape = property(lambda self: self.data.shape[1:])
    ndim = property(lambda self: self.data.ndim - 1)
    dtype = property(lambda self: self.data.dtype)
    size = property(lambda self: int(np.prod(self.data.shape[1:])))

    def __len__(self) -> int:
        return self.data.shape[1]


class LocalArray(SharedArray):
    """One `cuda.local.array`: a copy per lane (axis 0), never logged, its reads never checked (as on
    the reference engine)."""

    def unwritten(self, key) -> None:
        return None

    def mark_written(self, key) -> None:
        pass


class VectorLog:
    """Access events, capped at `cap`, kept as references to the lane arrays that produced them.

    A statement's lanes share their thread ids, epochs and warp clocks: an entry holds those arrays
    (never changed in place afterwards) and the lanes' own indices and values, so recording costs
    little more than the values themselves; `columns()` lays the typed columns out once, at the end.
    """

    def __init__(self, cap: int, timed: bool, blocks: tuple[int, ...] = (), n_blocks: int = 1,
                 per_block: int = 1) -> None:  # fmt: skip
        self.cap, self.count, self.truncated, self.timed = cap, 0, False, timed
        self.entries: list[tuple] = []
        self.n_blocks, self.per_block = n_blocks, per_block
        self.chosen = block_mask(blocks, n_blocks) if blocks else None  # blocks whose accesses are kept
        self.narrowed = False  # the budget made the log keep the first and last blocks only
        self.requests: np.ndarray | None = None  # set by columns(): each row's warp request (warp_requests.py)

    def add(self, t, lanes, aid: int, index, kind: int, line: int, value) -> None:
        n = t.n if lanes is None else len(lanes)
        clock = (t.clock.time.copy(), t.warp_key) if self.timed and t.clock is not None else None
        entry = (n, lanes, t.gid, t.ep, aid, index, kind, line, value, clock)
        if self.chosen is not None:
            entry = self._keep_chosen(entry)
        if entry[0] > self.cap - self.count and self.chosen is None:
            self._narrow()
            entry = self._keep_chosen(entry)
        n, room = entry[0], self.cap - self.count
        if n > room:
            self.truncated = True
            n = max(room, 0)
            entry = (n, *entry[1:])
        if n > 0:
            self.entries.append(entry)
            self.count += n

    def recorded_blocks(self) -> list[int] | None:
        """The blocks whose accesses the log kept, when it kept only some."""
        return None if self.chosen is None else np.flatnonzero(self.chosen).tolist()

    def _narrow(self) -> None:
        """Over budget: keep the first and the last block's accesses (and drop the others already kept)."""
        self.narrowed = True
        self.chosen = block_mask((0, -1), self.n_blocks)
        self.entries = [e for e in (self._keep_chosen(e) for e in self.entries) if e[0]]
        self.count = sum(e[0] for e in self.entries)

    def _keep_chosen(self, entry: tuple) -> tuple:
        n, lanes, gid, ep, aid, index, kind, line, value, clock = entry
        positions = np.arange(n) if lanes is None else lanes[:n]
        keep = np.flatnonzero(self.chosen[gid[positions] // self.per_block])
        if len(keep) == n:
            return entry
        index = index[:n][keep] if np.ndim(index) else index
        value = value[:n][keep] if np.ndim(value) else value
        return (len(keep), positions[keep], gid, ep, aid, index, kind, line, value, clock)

    def columns(self, block_starts: np.ndarray | None = None, in_time_order: bool = False) -> dict[str, np.ndarray]:
        """The typed columns; `block_starts`: each block's start, when its clocks counted from 0;
        `in_time_order`: ordered by time (stably), when groups of blocks ran one after the other.
        The times come first; each other column is then written once, straight into its final row."""
        names = [*ACCESS_COLUMNS, "time"] if self.timed else list(ACCESS_COLUMNS)
        dtypes = {**ACCESS_COLUMNS, "time": np.int64}
        out = {name: np.empty(self.count, dtypes[name]) for name in names}
        spans = list(itertools.accumulate((e[0] for e in self.entries), initial=0))
        if self.timed:
            self._times(out, spans, block_starts)
        rows = None  # where the log's k-th event goes: k itself unless the times need ordering
        if self.timed and in_time_order and np.any(out["time"][1:] < out["time"][:-1]):
            order = np.argsort(out["time"], kind="stable")  # runs of nearly sorted times: fast
            out["time"] = out["time"][order]
            rows = np.empty_like(order)
            rows[order] = np.arange(len(order))
        numbering = RequestNumbering(self.n_blocks, self.per_block)
        request = np.empty(self.count, np.int32 if self.count < 2**31 else np.int64)
        for (n, lanes, gid, ep, aid, index, kind, line, value, _clock), at in zip(self.entries, spans):
            span = slice(at, at + n) if rows is None else rows[at : at + n]
            if numbering.agrees:
                numbering.entry(request, rows, at, gid, lanes, n, (aid, kind, line))
            pick = (lambda a, n=n: a[:n]) if lanes is None else (lambda a, lanes=lanes, n=n: a[lanes[:n]])
            out["thread"][span] = pick(gid)
            out["epoch"][span] = pick(ep)
            out["array"][span], out["kind"][span], out["line"][span] = aid, kind, line
            out["index"][span] = index[:n] if np.ndim(index) else index
            out["value"][span] = _real(np.asarray(value))[:n] if np.ndim(value) else _real(np.asarray(value))
        self.entries = []
        self.requests = request if numbering.agrees else None
        return out

    def _times(self, out: dict, spans: list[int], block_starts: np.ndarray | None) -> None:
        """The time column in the log's order: each lane's warp clock, plus its block's start."""
        time = out["time"]
        for (n, lanes, gid, *_, clock), at in zip(self.entries, spans):
            span = slice(at, at + n)
            if clock is None:
                time[span] = 0
            else:
                times = _lane_times(*clock)
                time[span] = times[:n] if lanes is None else times[lanes[:n]]
            if block_starts is not None:
                time[span] += block_starts[(gid[:n] if lanes is None else gid[lanes[:n]]) // self.per_block]


def block_mask(blocks: tuple[int, ...], n_blocks: int) -> np.ndarray:
    """Linear block numbers (negative ones count from the end) as a mask over the launch's blocks."""
    mask = np.zeros(n_blocks, bool)
    for b in blocks:
        if -n_blocks <= b < n_blocks:
            mask[b] = True
    return mask


def _lane_times(warp_times: np.ndarray, warp_key: np.ndarray) -> np.ndarray:
    """Each lane's time from its warp's: a repeat when every warp is 32 consecutive lanes."""
    if len(warp_key) == 32 * len(warp_times):
        return np.repeat(warp_times, 32)
    return warp_times[warp_key]


def _real(values: np.ndarray) -> np.ndarray:
    return values.real if np.iscomplexobj(values) else values


class VectorMemory:
    """The memory hooks of one launch; `lanes` is the batch running now (set by the engine)."""

    def __init__(self, arrays: ArrayTable, log: VectorLog | None, grid: tuple, block: tuple):
        self.arrays, self.log = arrays, log
        self.grid, self.block = grid, block
        self.lanes = None
        self.sharing = None  # BlockSharing while blocks run in groups (vector/independent.py)
        self.errors = None  # the launch's ErrorLog: out-of-bounds lanes of global arrays stop with an error
        self.spin = None  # a SpinWatch (vector/spin.py) where a launch that makes no progress is stopped
        self.local_types: dict = {}  # each local's type over the launch (vector/lanes.py), for the trace

    # ---- where an element lives --------------------------------------------------------------
    def field(self, array, name: str) -> np.ndarray:
        """A record field's view of a global array (ArrayTable.field); shared and local records, and a field that
        is not there, go to the reference engine, which words the last."""
        if not isinstance(array, np.ndarray) or name not in (array.dtype.names or ()):
            raise VectorUnsupported("a field of a shared or local array of records")
        return self.arrays.field(array, name)

    def _storage(self, t, array) -> tuple[np.ndarray, np.ndarray | None, int | None, str]:
        if isinstance(array, np.ndarray):
            if array.dtype.names:  # `r[i] = r[j]`: a field's accesses (`r[i].x`) come as the field's own view
                raise VectorUnsupported("a whole record loaded or stored")
            return array, None, self.arrays.ids.get(id(array)), "global"
        if isinstance(array, LocalArray):
            return array.data, t.positions, None, "local"
        if isinstance(array, SharedArray):
            return array.data, t.blk, array.aid, "shared"
        raise VectorUnsupported(f"indexing a {type(array).__name__}")

    def _key(self, t, array, index, lanes):
        """(data, index tuple into data, flat element numbers of the active lanes, aid, space)."""
        data, prefix, aid, space = self._storage(t, array)
        parts = index if type(index) is tuple else (index,)
        shape = data.shape if prefix is None else data.shape[1:]
        if len(parts) != len(shape):
            raise VectorUnsupported("a row of an array (an index with fewer parts than the array has axes)")
        checked = [_checked_once(t, p, n, lanes) for p, n in zip(parts, shape)]
        flat = 0
        for k, n in zip(checked, shape):
            flat = flat * n + k
        if prefix is not None:
            checked.insert(0, prefix if lanes is None else prefix[lanes])
        return data, tuple(checked), flat, aid, space

    def _lanes_key(self, t, array, index, line: int, kind: str, every: bool = False):
        """(active lanes or None for all, _key(...)); lanes whose index is past a global array's end
        stop first, with a memory error each, and the others go on (`every`: always list the lanes)."""
        lanes = t.lanes() if every or not t.full else None
        try:
            return lanes, self._key(t, array, index, lanes)
        except OutOfBounds:
            if not isinstance(array, np.ndarray) or self.errors is None:
                raise
        self._stop_out_of_bounds(t, array, index, lanes, line, kind)
        lanes = t.lanes() if every or not t.full else None
        return lanes, self._key(t, array, index, lanes)

    def _stop_out_of_bounds(self, t, array: np.ndarray, index, lanes, line: int, kind: str) -> None:
        positions = np.arange(t.n) if lanes is None else lanes
        values = _lane_index(t, index, positions)
        bad = np.zeros(len(positions), bool)
        for part, n in zip(values, array.shape):
            bad |= (part < -n) | (part >= n)
        if not bad.any():
            raise LaneFault("an index out of bounds")  # a float or odd index: the reference engine words it
        name = self.arrays.names.get(id(array), "a local array")
        self._list_errors(f"out-of-bounds {kind}", t, positions, bad, values, line, name)
        t.stop(positions[bad])

    def _report_unwritten(self, t, array: SharedArray, key, index, lanes, line: int) -> None:
        """Lanes reading shared memory no thread of their block wrote yet: a memory error each (the
        lane goes on with what is there, as on the reference engine)."""
        unread = array.unwritten(key)
        if unread is None or not unread.any():
            return
        if self.errors is None:
            raise LaneFault("a read of uninitialised shared memory")
        positions = np.arange(t.n) if lanes is None else lanes
        unread = np.broadcast_to(unread, positions.shape)
        name = self.arrays.entries[array.aid]["name"] if array.aid is not None else None
        self._list_errors("uninitialised shared read", t, positions, unread, _lane_index(t, index, positions), line,
                          name)  # fmt: skip

    def _list_errors(self, kind: str, t, positions, which, values: list, line: int, name: str | None) -> None:
        """A memory error for each of the lanes `positions[which]`, with the element it indexed."""
        shown = self.errors.MAX_ERRORS  # the log keeps this many in full and counts the rest
        columns = [np.asarray(v)[which][:shown].tolist() for v in values]
        elements = columns[0] if len(columns) == 1 else [tuple(e) for e in zip(*columns)]
        self.errors.add_many(kind, t.gid[positions[which]].tolist(), line, name, elements)

    # ---- hooks -------------------------------------------------------------------------------
    def load(self, t, array, index, line, _pause=None):
        if type(array) is tuple:
            return item(array, index)
        lanes, (data, key, flat, aid, space) = self._lanes_key(t, array, index, line, "read")
        if not t.active:
            return np.zeros(t.n, data.dtype)  # no lane reads: nothing is accessed
        if isinstance(array, SharedArray):
            self._report_unwritten(t, array, key, index, lanes, line)
        elif self.sharing is not None and space == "global":
            self.sharing.touch(t, aid, flat, lanes, write=False)
        values = data[key]
        if self.log is not None and aid is not None:
            self._record(t, lanes, aid, flat, READ, line, values)
        if self.spin is not None and space != "local":
            self._report_read(t, lanes, aid, flat, values, line)
        t.charge(f"{space}_load")  # after recording: an access's time is when its warp issued it
        if lanes is None or not isinstance(values, np.ndarray):
            return values
        out = np.zeros(t.n, values.dtype)
        out[lanes] = values
        return out

    def _report_read(self, t, lanes, aid, flat, values, line: int) -> None:
        first_flat = int(np.ravel(flat)[0]) if np.size(flat) else -1
        first_value = np.ravel(values)[0].item() if np.size(values) else None

        def who() -> str:
            gids = np.ravel(t.gid if lanes is None else t.gid[lanes])
            blocks = np.unique(gids // t.per_block)
            return f"{len(gids):,} threads of " + (f"block {int(blocks[0])}" if len(blocks) == 1 else
                                                    f"{len(blocks):,} blocks")  # fmt: skip

        self.spin.read(aid, first_flat, first_value, line, who)

    def store(self, t, array, index, value, line, _pause=None):
        if not t.active:
            return
        lanes, (data, key, flat, aid, space) = self._lanes_key(t, array, index, line, "write")
        if not t.active:
            return
        if isinstance(value, np.ndarray) and value.shape == (t.n,) and lanes is not None:
            value = value[lanes]
        try:
            value = np.asarray(value)
            if value.dtype.kind == "c" and data.dtype.kind != "c":
                raise KernelMisuse(complex_store_refusal(value.dtype, data.dtype))
            stored = _as_element(value, data.dtype)
        except (TypeError, ValueError) as exc:
            raise LaneFault(f"cannot store {value!r}: {exc}") from None
        if self.sharing is not None and space == "global":
            self.sharing.touch(t, aid, flat, lanes, write=True)
        if not data.flags.writeable:  # a module-level array, frozen as numba freezes it: the reference engine words it
            raise KernelMisuse("a store into a module-level array")
        if stored.ndim and all(np.ndim(k) == 0 for k in key):
            data[key] = stored[-1]  # every lane stores to one element: the last lane's value stays
        else:
            data[key] = stored
        if isinstance(array, SharedArray):
            array.mark_written(key)
        if self.spin is not None and space != "local":
            self.spin.wrote()
        if self.log is not None and aid is not None:
            self._record(t, lanes, aid, flat, WRITE, line, stored)
        t.charge(f"{space}_store")

    def atomic(self, t, op, array, index, operands, line, _pause=None):
        if not t.active:
            return 0
        if atomic_refusal(op, array, index):
            raise KernelMisuse("an atomic numba-cuda refuses")  # the reference engine words it
        index = atomic_index(index)
        lanes, (data, key, flat, aid, space) = self._lanes_key(t, array, index, line, "atomic", every=True)
        if not t.active:
            return np.zeros(t.n, data.dtype)
        if self.sharing is not None and space == "global":
            raise BlocksShareMemory("an atomic on global memory: blocks meet at its address")
        if isinstance(array, SharedArray):
            array.mark_written(key)  # an atomic's read of an unwritten element is not listed (nor by the reference)
        # numba-cuda converts each operand to the array's type first: atomic.max of a uint32 array with -2
        # compares 4294967294
        values = [_as_element(_per_lane(v, lanes, t.n), data.dtype) for v in operands]
        if op in ("add", "sub") and data.dtype.kind in "iu":
            old, new = _ordered_add(data, key, values[0], op == "sub")
        else:
            old, new = _ordered_serial(data, key, op, values)
        if self.spin is not None:  # an atomic that changes nothing (a failed compare-and-swap) is a read
            if np.any(np.asarray(old) != np.asarray(new)):
                self.spin.wrote()
            else:
                self._report_read(t, lanes, aid, flat, old, line)
        if self.log is not None and aid is not None:
            self._record(t, lanes, aid, flat, ATOMIC, line, new)
        where = np.broadcast_to(flat, lanes.shape)
        if space != "global":  # a shared array is its block's, a local one its lane's: no one else contends
            owner = t.blk if space == "shared" else t.positions
            where = owner[lanes] * int(np.prod(data.shape[1:])) + where
        t.charge("atomic", key=where)
        out = np.zeros(t.n, data.dtype)
        out[lanes] = old
        return out

    def shared(self, t, site, name, shape_dtype, keywords, line):
        array = t.shared.get(site)
        if array is None:
            shape, dtype = _shape_dtype(shape_dtype, keywords)
            shape = tuple(np.atleast_1d(shape).tolist())
            aid = self.arrays.shared_site(site, name, dtype, shape)
            array = t.shared[site] = SharedArray(np.zeros((t.n_blocks, *shape), dtype), aid)
        return array

    def const(self, name: str, array):
        """`cuda.const.array_like`: the same array (an argument), or a module array logged as constant."""
        if isinstance(array, np.ndarray) and id(array) not in self.arrays.ids:
            self.arrays.add_const(name, array)
        return array

    def local(self, shape, dtype):
        shape = tuple(np.atleast_1d(shape).tolist())
        dtype = to_dtype(dtype)
        if int(np.prod(shape)) * dtype.itemsize > MAX_LOCAL:  # the reference engine words the refusal
            raise LaneFault("a local array over the per-thread limit")
        return LocalArray(np.zeros((self.lanes.n, *shape), dtype), None)

    def _record(self, t, lanes, aid, flat, kind, line, values):
        self.log.add(t, lanes, aid, flat, kind, line, values)


def _as_element(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Values in the array's type, a float into an integer type as a GPU converts it (saturated), not as x86
    does."""
    if dtype.kind in "iu" and values.dtype.kind == "f":
        return float_to_integer(values, dtype)
    return values.astype(dtype, copy=False)


def _checked_once(t, part, n: int, lanes):
    """_checked, remembering the batch's last index of all lanes: `c[i] = a[i] + b[i]` checks `i` once."""
    if lanes is not None or not isinstance(part, np.ndarray):
        return _checked(part, n, lanes)
    last = t.checked_index
    if last is not None and last[0] is part and last[1] == n:  # a kernel's index arrays are never changed
        return last[2]
    result = _checked(part, n, None)
    t.checked_index = (part, n, result)  # holds `part`, so no other array can take its id
    return result


def _checked(part, n: int, lanes):
    """One index part for the active lanes, negative values wrapped; LaneFault when out of range."""
    if isinstance(part, np.ndarray):
        if part.dtype.kind not in "iub":
            raise LaneFault("a float index")
        if lanes is not None:
            part = part[lanes]
        if part.size:
            low, high = part.min(), part.max()
            if low < -n or high >= n:
                raise OutOfBounds("an index out of bounds")
            if low < 0:
                part = np.where(part < 0, part + n, part)
        return part.astype(np.int64, copy=False)
    if isinstance(part, (float, np.floating)) or not hasattr(part, "__index__"):
        raise LaneFault("a float index")
    k = int(part)
    if not -n <= k < n and (lanes is None or len(lanes)):  # no lane active: nothing is accessed
        raise OutOfBounds("an index out of bounds")
    return k + n if k < 0 else k


def _lane_index(t, index, positions: np.ndarray) -> list[np.ndarray]:
    """Each part of an index (one per axis), as the lanes at `positions` gave it."""
    return [_per_lane(p, positions, t.n) for p in (index if type(index) is tuple else (index,))]


def _per_lane(value, lanes: np.ndarray, n: int) -> np.ndarray:
    if isinstance(value, np.ndarray) and value.shape == (n,):
        return value[lanes]
    return np.broadcast_to(np.asarray(value), lanes.shape)


def _ordered_add(data: np.ndarray, key: tuple, values: np.ndarray, subtract: bool):
    """Integer atomic add in lane order: each lane's old value is the start plus the earlier lanes' adds."""
    values = -values if subtract else values
    key = tuple(np.broadcast_to(k, values.shape) for k in key)
    linear = np.ravel_multi_index(key, data.shape)
    order = np.argsort(linear, kind="stable")
    ordered, added = linear[order], values[order]
    inclusive = np.cumsum(added)
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    group_start = np.repeat(inclusive[first] - added[first], np.diff(np.r_[first, len(ordered)]))
    before = inclusive - added - group_start
    start = data[np.unravel_index(ordered, data.shape)]
    old = np.empty_like(values)
    old[order] = start + before
    np.add.at(data, key, values)
    return old, old + values


def item(values, index) -> object:
    """`t[i]`; of a tuple, an index of every lane picks each lane's item, as numba-cuda indexes a tuple of one
    number type at run time (a tuple of arrays or of mixed types, or an index past its end: the reference
    engine)."""
    if type(values) is not tuple or not isinstance(index, np.ndarray) or index.ndim == 0:
        return values[index]
    kinds = {numba_type(v) if not isinstance(v, np.ndarray) else None for v in values}
    if len(kinds) != 1 or None in kinds:
        raise VectorUnsupported("a tuple of arrays or of mixed types indexed differently by each lane")
    try:
        return np.asarray(values, dtype=kinds.pop())[index]
    except IndexError:
        raise VectorUnsupported("a tuple index past its end") from None


def _ordered_serial(data: np.ndarray, key: tuple, op: str, values: list[np.ndarray]):
    keys = list(zip(*(np.broadcast_to(k, values[0].shape if values else ()) for k in key)))
    old = np.zeros(len(keys), data.dtype)
    new = np.zeros(len(keys), data.dtype)
    apply = ATOMIC_OPS[op]
    for k, where in enumerate(keys):
        old[k] = data[where]
        data[where] = apply(data[where], *(v[k] for v in values))
        new[k] = data[where]
    return old, new
