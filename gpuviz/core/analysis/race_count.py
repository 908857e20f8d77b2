"""Counting racing pairs per location: the fast part of the race analysis (races.py describes them).

Only elements that two threads touch and someone writes can race; most elements of most kernels are
one thread's own, so their accesses are dropped first, by compiled passes (race_groups.py): those of
arrays nobody writes, of shared arrays at block epochs no block wrote them in, then of the elements
(global arrays) or (element, block, block epoch) groups (shared arrays) that one thread alone touches
or nobody writes. The rest are packed, one
int64 each, every field in the bits its range needs (element, block, block epoch, warp, warp epoch,
lane, class); where that key space is small (the usual case: a few hot elements touched by a million
threads) the distinct keys and their counts come from one bincount, otherwise from a sort. Pair counts
then come from run sizes, never from pairs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.requests import dense_ids
from gpuviz.core.errors import GpuvizError
from gpuviz.core.trace.columns import epoch_field
from gpuviz.core.trace.model import Trace

R, P, A = 0, 1, 2  # access classes: read, plain write, atomic
TABLE_SLACK = 1 << 20  # a bincount over up to 2 x events + this many keys beats a sort
TABLE = 1 << 22  # ids straight from keys of up to this range: tables of a few MB beat a sort of the keys


class Layout:
    """How an access maps to a location: (array, element) for global arrays, (array, element, block)
    for shared ones. `element_of(rows)` gives accesses' element keys = array << index_bits | element (and
    the grid epoch, where grid-wide barriers ordered the threads); the block completes it where needed.
    Within a block, a thread is (warp, warp epoch, lane): syncwarp orders the lanes of a warp without
    ordering other warps."""

    def __init__(self, trace: Trace):
        self.trace = trace
        acc = trace.accesses
        self.per_block = int(np.prod(trace.block))
        self.warp_size = int(trace.meta.get("warp_size", 32))
        self.arrays = trace.meta.get("arrays", [])
        self.shared = np.array([a["space"] == "shared" for a in self.arrays] or [False], bool)
        from gpuviz.core.analysis.race_groups import log_ranges  # numba: on first use, not with the app

        self.ranges = log_ranges(acc, self.shared[: len(self.arrays)])
        self.index_bits = max(1, self.ranges.top_index.bit_length())
        self._untrusted_warps = _untrusted_warps(trace, self.per_block, self.warp_size)
        self.any_epochs = self.ranges.any_epoch  # most kernels have no barriers: skip their fields
        # Grid-wide barriers order every thread: a location per grid epoch keeps them apart.
        self.grid_bits = max(1, self.ranges.top_grid_epoch.bit_length()) if self.ranges.top_grid_epoch else 0
        self.array_shift = self.index_bits + self.grid_bits
        if bits(np.array([len(self.arrays)])) + self.array_shift > 62:
            raise GpuvizError("trace too large to analyse for races in one pass (keys exceed 64 bits)")

    def pairable(self, by_block: bool) -> tuple[np.ndarray, np.ndarray]:
        """(the rows of locations that two threads touch and someone writes, ascending; their element keys),
        a shared array's location being its element in one block and block epoch where `by_block`, its
        element over the launch otherwise (race_groups.py)."""
        from gpuviz.core.analysis.race_groups import pairable_rows

        return pairable_rows(self.trace.accesses, self.ranges, self.shared, self.per_block, by_block, self.index_bits,
                             self.grid_bits)  # fmt: skip

    @functools.cached_property
    def element(self) -> np.ndarray:
        """Every access's element key, built only where a fence order needs it (the rest of the search
        asks element_of for the rows it looks at)."""
        return self.element_of(None)

    def element_of(self, rows: np.ndarray | None) -> np.ndarray:
        """The element keys of the given accesses (None: all)."""
        acc = self.trace.accesses
        array, index = (acc["array"], acc["index"]) if rows is None else (acc["array"][rows], acc["index"][rows])
        key = (array.astype(np.int64) << self.index_bits) | index
        if self.grid_bits:
            epoch = acc["epoch"] if rows is None else acc["epoch"][rows]
            key = (key << self.grid_bits) | epoch_field(epoch.astype(np.int64), "grid")
        return key

    def warp_epochs(self, rows: np.ndarray) -> np.ndarray | None:
        """The given accesses' warp epochs, or 0 for every access of a warp whose epochs cannot be
        trusted: a lane left out of a syncwarp of part of its warp that accessed memory at the warp
        epoch it had then (its accesses are not ordered with the others' later ones, though the
        epochs differ). None: all 0."""
        acc = self.trace.accesses
        if not self.any_epochs:
            return None
        epochs = epoch_field(acc["epoch"][rows], "warp")
        if self._untrusted_warps is None:
            return epochs
        thread = acc["thread"][rows].astype(np.int64)
        return np.where(np.isin(_warp_number(thread, self.per_block, self.warp_size), self._untrusted_warps), 0, epochs)


@dataclass
class Found:
    """Racing locations: element key, block (shared arrays) or -1, racing pairs, write-write pairs;
    and the access-log rows of elements that could race (in time order)."""

    element: np.ndarray
    copy: np.ndarray
    pairs: np.ndarray
    write_pairs: np.ndarray
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.element)

    def __getitem__(self, cut: slice) -> Found:
        return Found(self.element[cut], self.copy[cut], self.pairs[cut], self.write_pairs[cut], self.rows)


# The fields of a packed access, most significant first: a key's prefix of n fields is key >> the
# widths of the fields after them, so runs of equal prefixes come from the keys without unpacking.
FIELDS = ("element", "block", "epoch", "warp", "warp_epoch", "lane", "class")


def racy_locations(layout: Layout) -> Found:
    """Every location with at least one racing pair, with its pair counts, sorted by element key."""
    counted, counted_id, element_keys = _counted(layout)
    empty = np.zeros(0, np.int64)
    if len(counted) == 0:
        return Found(empty, empty, empty, empty, empty)
    key, lows, widths = _pack(_fields(layout, counted, counted_id))
    distinct, count = _distinct(key, 1 << sum(widths))
    del key
    runs = _Runs(distinct, lows, widths, layout.shared[element_keys >> layout.array_shift])
    cls = (distinct & ((1 << widths[-1]) - 1)) + lows[-1]
    reads, atomics = (runs.per_thread(count, cls == c) for c in (R, A))
    total = runs.per_thread(count)
    writes = total - reads - atomics
    pairs = runs.pairs(total) - runs.pairs(reads) - (runs.pairs(atomics) if atomics.any() else 0)
    racy = pairs > 0
    first = runs.location_rows[racy]
    element, block = runs.element_and_block(first)
    copy = np.where(layout.shared[element_keys[element] >> layout.array_shift], block, -1)
    if not racy.any():  # no race: no pairs to count, no rows to describe
        return Found(empty, empty, empty, empty, empty)
    rows = _described_rows(layout, counted, copy)
    return Found(element_keys[element], copy, pairs[racy], runs.pairs(writes)[racy], rows)


def _described_rows(layout: Layout, counted: np.ndarray, copy: np.ndarray) -> np.ndarray:
    """The rows racy locations are described from (races.py): every row of their elements that two threads
    touch and someone writes, over the whole launch. Of global arrays those are the counted rows; a racy
    shared location needs its element's rows of every block and epoch, from another pass (_candidates)."""
    if (copy >= 0).any():
        return _candidates(layout)
    if not layout.shared.any():
        return counted
    return counted[~layout.shared[layout.trace.accesses["array"][counted]]]


def _fields(layout: Layout, rows: np.ndarray, element_id: np.ndarray):
    """The FIELDS of the given accesses, one at a time (each is packed, then freed)."""
    acc = layout.trace.accesses
    thread = acc["thread"][rows]
    yield element_id
    yield thread // layout.per_block
    yield epoch_field(acc["epoch"][rows], "block") if layout.any_epochs else None
    in_block = thread % layout.per_block
    yield in_block // layout.warp_size
    yield layout.warp_epochs(rows)
    yield in_block % layout.warp_size
    yield acc["kind"][rows]


def _candidates(layout: Layout) -> np.ndarray:
    """The rows of elements that two threads touch and someone writes, over the whole launch (a racy
    location is described from all of them: races.py)."""
    return layout.pairable(by_block=False)[0]


def _counted(layout: Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the rows that can add a racing pair, each one's element as an id, the element key of each id).
    A global element needs two threads and a write over the launch; a shared one within one block and
    one block epoch. Only rows of written arrays are looked at (race_groups.py)."""
    rows, element = layout.pairable(by_block=True)
    if len(rows) == 0:
        return rows, rows, rows
    ids, keys = _element_ids(element)
    return rows, ids, keys


def _element_ids(element: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(an id of every access's element, the element key of every id): the key less the smallest
    where the keys span a small range (ids of untouched elements then go unused), else dense ids."""
    low = int(element.min())
    span = int(element.max()) - low + 1
    if span <= max(4 * len(element) + 1024, TABLE):
        return (element - low if low else element), np.arange(low, low + span, dtype=np.int64)
    ids, first_rows = dense_ids(element)
    return ids, element[first_rows]


def _pack(fields) -> tuple[np.ndarray, list[int], list[int]]:
    """The fields as one int64 per row, each in as many bits as its range needs (first field most
    significant, so sorted keys are sorted by field in order); with each field's low end and width.
    A field given as None is 0 everywhere."""
    key, lows, widths = None, [], []
    for values in fields:
        if values is None:
            lows.append(0)
            widths.append(0)
            continue
        low = int(values.min())
        width = (int(values.max()) - low).bit_length()
        lows.append(low)
        widths.append(width)
        if sum(widths) > 62:
            raise GpuvizError("trace too large to analyse for races in one pass (keys exceed 64 bits)")
        if key is None:
            key = values.astype(np.int64)
        else:
            key <<= width
            key += values
        if low:
            key -= low
    return key, lows, widths


def _distinct(key: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct keys, ascending; how many times each occurs)."""
    if space <= 2 * len(key) + TABLE_SLACK:
        counts = np.bincount(key, minlength=space)
        distinct = np.flatnonzero(counts)
        return distinct, counts[distinct]
    key = np.sort(key)
    starts = np.flatnonzero(runs_of(key))
    return key[starts], np.diff(np.append(starts, len(key)))


def _untrusted_warps(trace: Trace, per_block: int, warp_size: int) -> np.ndarray | None:
    """Warps (numbered by _warp_number) whose warp epochs cannot be trusted; None when all can be."""
    acc = trace.accesses
    partial = trace.meta.get("partial_syncwarps")
    if not partial:
        return None
    thread = acc["thread"].astype(np.int64)
    warp = _warp_number(thread, per_block, warp_size)
    if not isinstance(partial, list):  # too many to keep: trust none
        return np.unique(warp)
    left_out = np.array([((first + lane) << 24) | (block_epoch << 8) | warp_epoch  # as `keys` below
                         for first, block_epoch, outside in partial
                         for lane, warp_epoch in outside], np.int64)  # fmt: skip
    epoch = acc["epoch"].astype(np.int64)
    keys = (thread << 24) | (epoch_field(epoch, "block") << 8) | epoch_field(epoch, "warp")
    return np.unique(warp[np.isin(keys, left_out)])


def _warp_number(thread: np.ndarray, per_block: int, warp_size: int) -> np.ndarray:
    return thread // per_block * (per_block // warp_size + 1) + thread % per_block // warp_size


def bits(values: np.ndarray) -> int:
    return max(1, int(values.max()).bit_length()) if len(values) else 1


class _Runs:
    """Run boundaries of sorted distinct packed accesses, for counting pairs of accesses per location.

    Two accesses of a location pair up when they come from different threads and no barrier orders
    them: same block and same block epoch, unless the same warp's syncwarp lies between them (other
    warp epochs), or, for global arrays, different blocks (counted over the location, less the pairs
    within each block). Within a group of a block and an epoch the pairs are those of the group,
    less those within each warp, plus those within each warp epoch of a warp (inclusion-exclusion;
    a thread's accesses in two warp epochs cancel out). Sums start per thread row and go up.
    A run of n leading fields starts where a key's bits above the later fields differ from the
    previous key's: where the two keys' xor is at least 1 << (those fields' widths).
    """

    def __init__(self, key: np.ndarray, lows: list[int], widths: list[int], shared_by_id: np.ndarray):
        self.key, self.lows, self.widths = key, lows, widths
        changed = np.empty(len(key), np.int64)
        changed[0] = -1  # every run starts at the first key
        np.bitwise_xor(key[1:], key[:-1], out=changed[1:])
        self.changed = changed
        element = key >> sum(widths[1:])
        shared = shared_by_id[element + lows[0]] if shared_by_id.any() else np.zeros(len(key), bool)
        location = self._starts(1) | (shared & self._starts(2))
        self.location_rows = np.flatnonzero(location)
        self.threads = np.flatnonzero(self._starts(6))
        self._thread_rows = None
        self.levels = []  # (rows of thread runs starting a group, groups starting a location, sign)
        # With one warp epoch (no syncwarp), the groups of warps and of warp epochs are the same and cancel.
        for fields, sign in ((3, 1),) if widths[4] == 0 else ((3, 1), (4, -1), (5, 1)):
            groups = self._starts(fields)
            self.levels.append((np.flatnonzero(groups[self.threads]),
                                np.flatnonzero(location[np.flatnonzero(groups)]), sign))  # fmt: skip
        blocks = self._starts(2)
        self.blocks_of_threads = np.flatnonzero(blocks[self.threads])
        self.locations_of_blocks = np.flatnonzero(location[np.flatnonzero(blocks)])
        self.global_location = ~shared[self.location_rows]

    def _starts(self, fields: int) -> np.ndarray:
        """True where a run of equal first `fields` fields starts."""
        return (self.changed < 0) | (self.changed >= 1 << sum(self.widths[fields:]))

    def element_and_block(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The element id and block of the given rows."""
        key = self.key[rows] >> sum(self.widths[2:])
        return (key >> self.widths[1]) + self.lows[0], (key & ((1 << self.widths[1]) - 1)) + self.lows[1]

    def per_thread(self, count: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Per thread run: the sum of the counts of its rows (of the rows where `where` holds)."""
        if where is None:
            return np.add.reduceat(count, self.threads)
        out = np.zeros(len(self.threads), np.int64)
        out[self._thread_of_row()[where]] = count[where]  # a thread run holds one row per class
        return out

    def _thread_of_row(self) -> np.ndarray:
        if self._thread_rows is None:
            self._thread_rows = np.cumsum(self._starts(6)) - 1
        return self._thread_rows

    def pairs(self, per_thread: np.ndarray) -> np.ndarray:
        """Per location: pairs of counted accesses by different threads that no barrier orders."""
        within = np.zeros(len(self.location_rows), np.int64)
        for groups_of_threads, locations_of_groups, sign in self.levels:
            per_group = np.add.reduceat(per_thread, groups_of_threads)
            squares = np.add.reduceat(per_thread * per_thread, groups_of_threads)
            within += sign * np.add.reduceat((per_group * per_group - squares) // 2, locations_of_groups)
        per_block = np.add.reduceat(per_thread, self.blocks_of_threads)
        total = np.add.reduceat(per_block, self.locations_of_blocks)
        block_squares = np.add.reduceat(per_block * per_block, self.locations_of_blocks)
        across = np.where(self.global_location, (total * total - block_squares) // 2, 0)
        return within + across


def runs_of(*columns: np.ndarray) -> np.ndarray:
    """True where a new run of equal (columns) starts, in sorted data."""
    start = np.zeros(len(columns[0]), bool)
    if len(start):
        start[0] = True
    for column in columns:
        start[1:] |= column[1:] != column[:-1]
    return start
