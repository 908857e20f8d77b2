"""Race detection: pure functions of a trace's access log.

Two accesses race when they touch the same location (global: array and element; shared: array,
block and element), come from different threads, at least one writes (an atomic counts as a
write, but two atomics never race), and no barrier orders them: they are in different blocks, or
in the same block with the same barrier epoch.

The work is one sort of packed int64 keys (location, block, epoch, thread in block, class) and
reductions over its runs, so millions of events take well under a second.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from gpuviz.core.errors import GpuvizError
from gpuviz.core.launch import format_dims
from gpuviz.core.trace import Trace, epoch_field

R, P, A = 0, 1, 2  # access classes: read, plain write, atomic
MAX_EXAMPLE_EVENTS = 4096


@dataclass(frozen=True)
class Party:
    """One side of a racing pair."""

    block: tuple[int, int, int]
    thread: tuple[int, int, int]
    line: int
    access: str  # "read", "write" or "atomic"


@dataclass(frozen=True)
class Race:
    array: str
    space: str  # "global" or "shared"
    index: int  # element, C-order
    block: tuple[int, int, int] | None  # the block whose copy of a shared array this is
    kind: str  # RAW, WAR or WAW (of the example pair, in the order they happened)
    scope: str  # "same warp", "same block" or "different blocks"
    first: Party
    second: Party
    pairs: int  # how many racing pairs of accesses this location has


@dataclass
class RaceReport:
    races: list[Race] = field(default_factory=list)
    benign: list[Race] = field(default_factory=list)  # several threads writing one same value
    truncated: bool = False  # more racy locations than were described
    divergence: list[str] = field(default_factory=list)
    locations: int = 0  # racy locations found (may exceed len(races) when truncated)
    racy_arrays: list[str] = field(default_factory=list)  # arrays of all racy locations, described or not

    @property
    def racy(self) -> bool:
        return self.locations > 0

    def arrays(self) -> list[str]:
        return sorted(set(self.racy_arrays) | {race.array for race in self.races})

    def to_json(self) -> dict:
        return {
            "racy": self.racy,
            "races": [_race_json(r) for r in self.races],
            "benign": [_race_json(r) for r in self.benign],
            "truncated": self.truncated,
            "locations": self.locations,
            "racy_arrays": self.arrays(),
            "barrier_divergence": self.divergence,
        }

    @classmethod
    def from_json(cls, data: dict) -> RaceReport:
        """The report `to_json` wrote (stored in a trace's analysis)."""
        return cls(
            races=[_race_from_json(r) for r in data.get("races", [])],
            benign=[_race_from_json(r) for r in data.get("benign", [])],
            truncated=bool(data.get("truncated", False)),
            divergence=list(data.get("barrier_divergence", [])),
            locations=int(data.get("locations", 0)),
            racy_arrays=list(data.get("racy_arrays", [])),
        )

    def summary(self) -> str:
        if not self.racy:
            return "races: none found"
        arrays = self.arrays()
        return f"races: {self.locations} location{'s' * (self.locations != 1)} in {len(arrays)} array" + (
            "s" * (len(arrays) != 1)
        )


def _race_json(race: Race) -> dict:
    data = asdict(race)
    if data["block"] is None:
        del data["block"]
    return data


def _race_from_json(data: dict) -> Race:
    block = data.get("block")
    parties = [Party(tuple(p["block"]), tuple(p["thread"]), int(p["line"]), p["access"])
               for p in (data["first"], data["second"])]  # fmt: skip
    return Race(data["array"], data["space"], int(data["index"]), tuple(block) if block is not None else None,
                data["kind"], data["scope"], parties[0], parties[1], int(data["pairs"]))  # fmt: skip


def find_races(trace: Trace, count_benign: bool = False, max_locations: int = 1000) -> RaceReport:
    """Every racing location of a launch, with an example pair each (at most max_locations)."""
    if trace.accesses is None:
        raise GpuvizError("this trace has no access log; record it with --level accesses to look for races")
    divergence = [w for w in trace.meta.get("warnings", []) if "barrier divergence" in w]
    if len(trace.accesses["thread"]) == 0:
        return RaceReport(divergence=divergence)
    layout = _Layout(trace)
    racy = _racy_locations(layout)
    limit = max_locations if count_benign else 2 * max_locations
    described = list(_describe(layout, racy[:limit]))
    races = [race for race, benign in described if count_benign or not benign]
    benign = [race for race, is_benign in described if is_benign and not count_benign]
    undescribed = len(racy) - len(described)
    names = [entry["name"] for entry in layout.arrays]
    unseen = np.unique(racy.element[len(described) :] >> layout.array_shift)
    return RaceReport(
        racy_arrays=sorted({race.array for race in races} | {names[int(a)] for a in unseen}),
        races=races[:max_locations],
        benign=benign[:max_locations],
        truncated=undescribed > 0 or len(races) > max_locations,
        divergence=divergence,
        locations=len(races) + undescribed,
    )


class _Layout:
    """How an access maps to a location and to a packed int64 sort key.

    A location is (array, element) for global arrays and (array, element, block) for shared ones;
    `element_key` = array << index_bits | element (and the grid epoch, where grid-wide barriers
    ordered the threads), and the block completes it where needed. Within a block, a thread is
    (warp, warp epoch, lane): syncwarp orders the lanes of a warp without ordering other warps.
    """

    def __init__(self, trace: Trace):
        self.trace = trace
        acc = trace.accesses
        self.per_block = int(np.prod(trace.block))
        self.warp_size = int(trace.meta.get("warp_size", 32))
        self.arrays = trace.meta.get("arrays", [])
        self.shared = np.array([a["space"] == "shared" for a in self.arrays] or [False], bool)
        self.index_bits = _bits(acc["index"])
        self.warp_epochs = _trusted_warp_epochs(trace, self.per_block, self.warp_size)
        # Grid-wide barriers order every thread: a location per grid epoch keeps them apart.
        grid_epochs = epoch_field(acc["epoch"], "grid")
        self.grid_bits = _bits(grid_epochs) if grid_epochs.any() else 0
        self.array_shift = self.index_bits + self.grid_bits
        self.widths = [  # block, block epoch, warp, warp epoch, lane, class
            _bits(np.array([int(acc["thread"].max()) // self.per_block])),
            _bits(epoch_field(acc["epoch"], "block")),
            _bits(np.array([(self.per_block - 1) // self.warp_size])),
            _bits(self.warp_epochs),
            _bits(np.array([self.warp_size - 1])),
            2,
        ]
        self.array_bits = _bits(np.array([len(self.arrays)]))
        if self.array_bits + self.array_shift + sum(self.widths) > 63:
            raise GpuvizError("trace too large to analyse for races in one pass (keys exceed 64 bits)")

    def element_keys(self, rows=slice(None)) -> np.ndarray:
        acc = self.trace.accesses
        key = (acc["array"][rows].astype(np.int64) << self.index_bits) | acc["index"][rows]
        if self.grid_bits:
            key = (key << self.grid_bits) | epoch_field(acc["epoch"][rows].astype(np.int64), "grid")
        return key

    def packed_keys(self) -> np.ndarray:
        """(element, block, block epoch, warp, warp epoch, lane, class) in one int64 per access;
        the access kind (read 0, write 1, atomic 2) is the class."""
        acc = self.trace.accesses
        block, thread = np.divmod(acc["thread"].astype(np.int64), self.per_block)
        warp, lane = np.divmod(thread, self.warp_size)
        epoch = acc["epoch"].astype(np.int64)
        columns = [block, epoch_field(epoch, "block"), warp, self.warp_epochs, lane, acc["kind"]]
        key = self.element_keys()
        for values, width in zip(columns, self.widths):
            key <<= width
            key |= values
        return key

    def unpack(self, key: np.ndarray) -> tuple[np.ndarray, ...]:
        """element key, block, block epoch, warp, warp epoch, lane, class."""
        parts = []
        for width in reversed(self.widths):
            parts.append(key & ((1 << width) - 1))
            key = key >> width
        cls, lane, warp_epoch, warp, epoch, block = parts
        return key, block, epoch, warp, warp_epoch, lane, cls


def _trusted_warp_epochs(trace: Trace, per_block: int, warp_size: int) -> np.ndarray:
    """Each access's warp epoch, or 0 for every access of a warp whose epochs cannot be trusted: a
    lane left out of a syncwarp of part of its warp that accessed memory at the warp epoch it had
    then (its accesses are not ordered with the others' later ones, though the epochs differ)."""
    acc = trace.accesses
    epoch = acc["epoch"].astype(np.int64)
    epochs = epoch_field(epoch, "warp")
    partial = trace.meta.get("partial_syncwarps")
    if not partial:
        return epochs
    if not isinstance(partial, list):  # too many to keep: trust none
        return np.zeros_like(epochs)
    left_out = np.array([((first + lane) << 24) | (block_epoch << 8) | warp_epoch  # as `keys` below
                         for first, block_epoch, outside in partial
                         for lane, warp_epoch in outside], np.int64)  # fmt: skip
    thread = acc["thread"].astype(np.int64)
    keys = (thread << 24) | (epoch_field(epoch, "block") << 8) | epochs
    warp = thread // per_block * (per_block // warp_size + 1) + thread % per_block // warp_size
    untrusted = np.isin(warp, np.unique(warp[np.isin(keys, left_out)]))
    return np.where(untrusted, 0, epochs)


def _bits(values: np.ndarray) -> int:
    return max(1, int(values.max()).bit_length()) if len(values) else 1


@dataclass
class _Found:
    """Racing locations: element key, block (shared arrays) or -1, racing pairs, write-write pairs."""

    element: np.ndarray
    copy: np.ndarray
    pairs: np.ndarray
    write_pairs: np.ndarray

    def __len__(self) -> int:
        return len(self.element)

    def __getitem__(self, cut: slice) -> _Found:
        return _Found(self.element[cut], self.copy[cut], self.pairs[cut], self.write_pairs[cut])


def _racy_locations(layout: _Layout) -> _Found:
    """Every location with at least one racing pair, with its pair counts, sorted."""
    key = np.sort(layout.packed_keys())
    starts = np.flatnonzero(_runs(key))
    count = np.diff(np.append(starts, len(key)))  # how many times each distinct access happened
    columns = layout.unpack(key[starts])
    keep = _shared_and_written(*columns)
    element, block, epoch, warp, warp_epoch, lane, cls = (c[keep] for c in columns)
    count = count[keep]
    if len(element) == 0:
        return _Found(*(np.zeros(0, np.int64) for _ in range(4)))
    shared = layout.shared[element >> layout.array_shift]
    runs = _Runs(element, block, epoch, warp, warp_epoch, lane, shared)
    reads, writes, atomics = (runs.per_thread(count * (cls == c)) for c in (R, P, A))
    pairs = runs.pairs(reads + writes + atomics) - runs.pairs(reads) - runs.pairs(atomics)
    racy = pairs > 0
    first = runs.location_rows[racy]
    copy = np.where(shared[first], block[first], -1)
    return _Found(element[first], copy, pairs[racy], runs.pairs(writes)[racy])


class _Runs:
    """Run boundaries of sorted distinct accesses, for counting pairs of accesses per location.

    Two accesses of a location pair up when they come from different threads and no barrier orders
    them: same block and same block epoch, unless the same warp's syncwarp lies between them (other
    warp epochs), or, for global arrays, different blocks (counted over the location, less the pairs
    within each block). Within a group of a block and an epoch the pairs are those of the group,
    less those within each warp, plus those within each warp epoch of a warp (inclusion-exclusion;
    a thread's accesses in two warp epochs cancel out). Sums start per thread row and go up.
    """

    def __init__(self, element, block, epoch, warp, warp_epoch, lane, shared):
        location = _runs(element) | (shared & _runs(element, block))
        self.location_rows = np.flatnonzero(location)
        self.threads = np.flatnonzero(_runs(element, block, epoch, warp, warp_epoch, lane))
        self.levels = []  # (rows of thread runs starting a group, groups starting a location, sign)
        for columns, sign in (((element, block, epoch), 1), ((element, block, epoch, warp), -1),
                              ((element, block, epoch, warp, warp_epoch), 1)):  # fmt: skip
            groups = _runs(*columns)
            self.levels.append((np.flatnonzero(groups[self.threads]),
                                np.flatnonzero(location[np.flatnonzero(groups)]), sign))  # fmt: skip
        blocks = _runs(element, block)
        self.blocks_of_threads = np.flatnonzero(blocks[self.threads])
        self.locations_of_blocks = np.flatnonzero(location[np.flatnonzero(blocks)])
        self.global_location = ~shared[self.location_rows]

    def per_thread(self, weight: np.ndarray) -> np.ndarray:
        return np.add.reduceat(weight.astype(np.int64), self.threads)

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


def _shared_and_written(element, block, epoch, warp, warp_epoch, lane, cls) -> np.ndarray:
    """Rows of elements that two threads touch and someone writes: only these can race, and
    most elements of most kernels are one thread's own, so this drops most rows, cheaply."""
    starts = np.flatnonzero(_runs(element))
    ends = np.append(starts[1:], len(element)) - 1
    other = np.zeros(len(element), np.int64)
    other[1:] = (block[1:] != block[:-1]) | (warp[1:] != warp[:-1]) | (lane[1:] != lane[:-1])
    other[starts] = 0  # a new element is not another thread of the same element
    seen_other = np.cumsum(other)
    seen_write = np.cumsum(cls != R)
    written = seen_write[ends] - seen_write[starts] + (cls[starts] != R) > 0
    candidate = (seen_other[ends] - seen_other[starts] > 0) & written
    return np.repeat(candidate, ends - starts + 1)


def _runs(*columns: np.ndarray) -> np.ndarray:
    """True where a new run of equal (columns) starts, in sorted data."""
    start = np.zeros(len(columns[0]), bool)
    if len(start):
        start[0] = True
    for column in columns:
        start[1:] |= column[1:] != column[:-1]
    return start


# ---- describing racy locations ------------------------------------------------------------------
def _describe(layout: _Layout, found: _Found):
    """(Race, benign) for each racing location, from that location's accesses in time order."""
    if len(found) == 0:
        return
    acc = layout.trace.accesses
    element = layout.element_keys()
    rows = np.flatnonzero(_member(element, np.unique(found.element)))
    rows = _by_element_then_time(element[rows], rows)
    block = acc["thread"][rows].astype(np.int64) // layout.per_block
    bounds = np.flatnonzero(np.concatenate([[True], element[rows][1:] != element[rows][:-1], [True]]))
    spans = {int(element[rows[a]]): (a, b) for a, b in zip(bounds[:-1], bounds[1:])}
    for key, copy, pairs, write_pairs in zip(found.element.tolist(), found.copy.tolist(), found.pairs.tolist(),
                                             found.write_pairs.tolist()):  # fmt: skip
        a, b = spans[key]
        chosen = rows[a:b] if copy < 0 else rows[a:b][block[a:b] == copy]
        race = _describe_location(layout, chosen, None if copy < 0 else copy, pairs, write_pairs)
        if race is not None:
            yield race


def _member(values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """values in wanted, by a lookup table where the key space is small (much faster than isin)."""
    top = int(values.max()) + 1 if len(values) else 0
    if top > 1 << 27:
        return np.isin(values, wanted)
    table = np.zeros(top, bool)
    table[wanted[wanted < top]] = True
    return table[values]


def _by_element_then_time(element: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """rows reordered by element, keeping time order within an element: one sort of packed keys."""
    row_bits = _bits(rows)
    if _bits(element) + row_bits > 63:
        return rows[np.argsort(element, kind="stable")]
    packed = np.sort((element << row_bits) | rows)
    return packed & ((1 << row_bits) - 1)


def _describe_location(layout: _Layout, rows: np.ndarray, shared_block: int | None, pairs: int, write_pairs: int):
    trace, acc = layout.trace, layout.trace.accesses
    thread = acc["thread"][rows].astype(np.int64)
    cls = acc["kind"][rows].astype(np.int64)
    block, epoch = thread // layout.per_block, acc["epoch"][rows].astype(np.int64)
    warp = thread // layout.warp_size  # global warp number: equal only within one block
    pair = _first_pair(cls, block, epoch_field(epoch, "block"), thread, warp, layout.warp_epochs[rows])
    if pair is None:
        return None
    i, j = rows[pair[0]], rows[pair[1]]
    entry = layout.arrays[int(acc["array"][i])]
    first, second = _party(trace, acc, i), _party(trace, acc, j)
    kind = "WAW" if cls[pair[0]] != R and cls[pair[1]] != R else ("RAW" if cls[pair[1]] == R else "WAR")
    same_block = block[pair[0]] == block[pair[1]]
    warps = trace.threads["warp"]
    same_warp = same_block and warps[thread[pair[0]]] == warps[thread[pair[1]]]
    scope = "same warp" if same_warp else ("same block" if same_block else "different blocks")
    coords = None if shared_block is None else _block_coords(trace, shared_block)
    race = Race(entry["name"], entry["space"], int(acc["index"][i]), coords, kind, scope, first, second, pairs)
    # Benign: every racing pair is two plain writes, and all plain writes wrote one same value.
    values = acc["value"][rows][cls == P]
    benign = write_pairs == pairs and len(values) > 0 and bool((values == values[0]).all())
    return race, benign


def _first_pair(cls, block, epoch, thread, warp, warp_epoch) -> tuple[int, int] | None:
    """The first racing pair in time: the earliest event that races with an earlier one. Every
    racing pair holds a write or an atomic, so the search starts at the first one."""
    writes = np.flatnonzero(cls != R)
    if len(writes) == 0:
        return None
    start = max(1, int(writes[0]))
    for j in range(start, min(len(cls), start + MAX_EXAMPLE_EVENTS)):
        earlier = slice(0, j)
        ordered_in_warp = (warp[earlier] == warp[j]) & (warp_epoch[earlier] != warp_epoch[j])
        concurrent = (block[earlier] != block[j]) | ((epoch[earlier] == epoch[j]) & ~ordered_in_warp)
        other = thread[earlier] != thread[j]
        if cls[j] == P:
            clash = np.ones(j, bool)
        elif cls[j] == A:
            clash = cls[earlier] != A
        else:
            clash = cls[earlier] != R
        hits = np.flatnonzero(concurrent & other & clash)
        if len(hits):
            return int(hits[0]), j
    return None


def _party(trace: Trace, acc, row: int) -> Party:
    thread = int(acc["thread"][row])
    return Party(
        tuple(int(v) for v in trace.threads["block_idx"][thread]),
        tuple(int(v) for v in trace.threads["thread_idx"][thread]),
        int(acc["line"][row]),
        ("read", "write", "atomic")[int(acc["kind"][row])],
    )


def _block_coords(trace: Trace, block: int) -> tuple[int, int, int]:
    gx, gy, _ = trace.grid
    return (block % gx, (block // gx) % gy, block // (gx * gy))




# ---- the readable report ------------------------------------------------------------------------
def format_report(report: RaceReport, kernel: str) -> str:
    """One line per group of neighbouring locations that race the same way."""
    if not report.racy and not report.benign and not report.divergence:
        return f"{kernel}: no races found"
    lines = [f"{kernel}: {report.summary()[len('races: '):] if report.racy else 'no races found'}"]
    lines += [f"  {line}" for line in _grouped_lines(report.races)]
    if report.truncated:
        lines.append(f"  ... {report.locations - len(report.races)} more racing locations not described")
    if report.benign:
        lines.append("benign (several threads write the same value; --count-benign counts them as races):")
        lines += [f"  {line}" for line in _grouped_lines(report.benign)]
    lines += [f"warning: {message}" for message in report.divergence]
    return "\n".join(lines)


def _signature(race: Race) -> tuple:
    return (race.array, race.space, race.block, race.kind, race.scope, race.first.line, race.second.line,
            race.first.access, race.second.access)  # fmt: skip


def _grouped_lines(races: list[Race]) -> list[str]:
    groups: list[list[Race]] = []
    for race in sorted(races, key=lambda r: (_signature(r)[:3], r.index)):
        last = groups[-1][-1] if groups else None
        if last is not None and _signature(last) == _signature(race) and race.index == last.index + 1:
            groups[-1].append(race)
        else:
            groups.append([race])
    return [_group_line(group) for group in groups]


def _group_line(group: list[Race]) -> str:
    race = group[0]
    where = f"{race.array}[{race.index}]" if len(group) == 1 else f"{race.array}[{race.index}..{group[-1].index}]"
    space = race.space if race.block is None else f"shared, block {format_dims(race.block)}"
    pairs = sum(r.pairs for r in group)
    return (
        f"{where} ({space}) {race.kind}, {race.scope}: {_who(race.first)} {race.first.access}, then "
        f"{_who(race.second)} {race.second.access}; {pairs:,} racing pair{'s' * (pairs != 1)}"
    )


def _who(party: Party) -> str:
    return f"block {format_dims(party.block)} thread {format_dims(party.thread)} line {party.line}"
