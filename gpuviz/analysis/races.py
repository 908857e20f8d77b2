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

from gpuviz.errors import GpuvizError
from gpuviz.trace import ATOMIC, READ, WRITE, Trace

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

    @property
    def racy(self) -> bool:
        return self.locations > 0

    def arrays(self) -> list[str]:
        return sorted({race.array for race in self.races})

    def to_json(self) -> dict:
        return {
            "racy": self.racy,
            "races": [_race_json(r) for r in self.races],
            "benign": [_race_json(r) for r in self.benign],
            "truncated": self.truncated,
            "locations": self.locations,
            "barrier_divergence": self.divergence,
        }

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


@dataclass
class _Events:
    """The access log with each event's location, block, class and position in time."""

    loc: np.ndarray
    block: np.ndarray
    thread_in_block: np.ndarray
    epoch: np.ndarray
    cls: np.ndarray
    order: np.ndarray


def find_races(trace: Trace, count_benign: bool = False, max_locations: int = 1000) -> RaceReport:
    """Every racing location of a launch, with an example pair each (at most max_locations)."""
    if trace.accesses is None:
        raise GpuvizError("this trace has no access log; record it with --level accesses to look for races")
    divergence = [w for w in trace.meta.get("warnings", []) if "barrier divergence" in w]
    layout = _Layout(trace)
    events = layout.events()
    if len(events.loc) == 0:
        return RaceReport(divergence=divergence)
    racy_locs = _racy_locations(events, layout)
    limit = max_locations if count_benign else 2 * max_locations
    described = list(_describe(trace, layout, events, racy_locs[:limit]))
    races = [race for race, benign in described if count_benign or not benign]
    benign = [race for race, is_benign in described if is_benign and not count_benign]
    undescribed = len(racy_locs) - len(described)
    return RaceReport(
        races=races[:max_locations],
        benign=benign[:max_locations],
        truncated=undescribed > 0 or len(races) > max_locations,
        divergence=divergence,
        locations=len(races) + undescribed,
    )


class _Layout:
    """Where each array's locations start in one location space, and how to pack sort keys."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self.per_block = int(np.prod(trace.block))
        self.n_blocks = int(np.prod(trace.grid))
        self.arrays = trace.meta.get("arrays", [])
        self.sizes = np.array([max(1, int(np.prod(a["shape"]))) for a in self.arrays], np.int64)
        self.shared = np.array([a["space"] == "shared" for a in self.arrays], bool)
        spans = self.sizes * np.where(self.shared, self.n_blocks, 1)
        self.offsets = np.concatenate([[0], np.cumsum(spans)[:-1]]).astype(np.int64)

    def events(self) -> _Events:
        acc = self.trace.accesses
        thread = acc["thread"].astype(np.int64)
        block = thread // self.per_block
        array = acc["array"].astype(np.int64)
        index = acc["index"].astype(np.int64)
        copy = np.where(self.shared[array], block, 0)
        loc = self.offsets[array] + copy * self.sizes[array] + index
        kind = acc["kind"]
        cls = np.where(kind == ATOMIC, A, np.where(kind == WRITE, P, R)).astype(np.int64)
        return _Events(loc, block, thread % self.per_block, acc["epoch"].astype(np.int64), cls,
                       np.arange(len(thread), dtype=np.int64))  # fmt: skip

    def array_of(self, loc: int) -> tuple[int, int, int | None]:
        """(array id, element, block for shared arrays) of a location."""
        a = int(np.searchsorted(self.offsets, loc, side="right") - 1)
        rest = loc - int(self.offsets[a])
        if self.shared[a]:
            return a, rest % int(self.sizes[a]), rest // int(self.sizes[a])
        return a, rest, None


def _bits(values: np.ndarray) -> int:
    return max(1, int(values.max()).bit_length()) if len(values) else 1


def _racy_locations(ev: _Events, layout: _Layout) -> np.ndarray:
    """Sorted locations that have at least one racing pair."""
    widths = [_bits(ev.block), _bits(ev.epoch), _bits(ev.thread_in_block), 2]
    if _bits(ev.loc) + sum(widths) > 63:
        raise GpuvizError("trace too large to analyse for races in one pass (keys exceed 64 bits)")
    key = ev.loc
    for values, width in zip([ev.block, ev.epoch, ev.thread_in_block, ev.cls], widths):
        key = (key << width) | values
    key = np.sort(key)
    keep = np.ones(len(key), bool)
    keep[1:] = key[1:] != key[:-1]
    key = key[keep]  # distinct (location, block, epoch, thread, class)
    cls = key & 3
    key >>= 2
    thread = key & ((1 << widths[2]) - 1)
    key >>= widths[2]
    epoch = key & ((1 << widths[1]) - 1)
    key >>= widths[1]
    block = key & ((1 << widths[0]) - 1)
    loc = key >> widths[0]
    within = _conflicts(_runs(loc, block, epoch), thread, cls)
    # Across blocks, for global arrays: the units are blocks, whatever the epoch.
    block_runs = _runs(loc, block)
    starts = np.flatnonzero(block_runs)
    run_cls = [np.logical_or.reduceat(cls == c, starts) for c in (R, P, A)]
    run_loc, run_block = loc[starts], block[starts]
    across = np.zeros(len(loc), bool)
    cross = _conflicts_from_flags(_runs(run_loc), run_block, *run_cls)
    across[starts] = cross
    racy = within | across
    return np.unique(loc[racy]) if racy.any() else np.zeros(0, np.int64)


def _runs(*columns: np.ndarray) -> np.ndarray:
    """True where a new run of equal (columns) starts, in sorted data."""
    start = np.zeros(len(columns[0]), bool)
    start[0] = True
    for column in columns:
        start[1:] |= column[1:] != column[:-1]
    return start


def _conflicts(group_start: np.ndarray, unit: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """For distinct (group, unit, class) rows sorted by group then unit: True on rows of groups
    in which two different units conflict."""
    unit_start = group_start | np.concatenate([[True], unit[1:] != unit[:-1]])
    starts = np.flatnonzero(unit_start)
    flags = [np.logical_or.reduceat(cls == c, starts) for c in (R, P, A)]
    conflict_units = _conflicts_from_flags(group_start[starts], unit[starts], *flags)
    out = np.zeros(len(unit), bool)
    out[starts] = conflict_units
    return out


def _conflicts_from_flags(group_start, unit, has_r, has_p, has_a) -> np.ndarray:
    """Rows are (group, unit) with flags of what the unit did; True on every row of a group where
    two units conflict: a plain write with any other unit, or an atomic and a read by others."""
    group = np.cumsum(group_start) - 1
    n_groups = group[-1] + 1 if len(group) else 0
    count = lambda flag: np.bincount(group, weights=flag, minlength=n_groups)  # noqa: E731
    units = count(np.ones(len(unit)))
    writers, atomics, readers = count(has_p), count(has_a), count(has_r)
    either = count(has_a | has_r)
    racy_group = ((writers > 0) & (units >= 2)) | ((atomics > 0) & (readers > 0) & (either >= 2))
    return racy_group[group]


# ---- describing racy locations ------------------------------------------------------------------
def _describe(trace: Trace, layout: _Layout, ev: _Events, locs: np.ndarray):
    if len(locs) == 0:
        return
    chosen = np.isin(ev.loc, locs)
    idx = np.flatnonzero(chosen)
    idx = idx[np.argsort(ev.loc[idx], kind="stable")]  # by location, then time
    bounds = np.flatnonzero(np.concatenate([[True], ev.loc[idx][1:] != ev.loc[idx][:-1], [True]]))
    acc = trace.accesses
    for a, b in zip(bounds[:-1], bounds[1:]):
        rows = idx[a:b]
        race = _describe_location(trace, layout, ev, acc, rows)
        if race is not None:
            yield race


def _describe_location(trace, layout, ev, acc, rows):
    cls, block, epoch = ev.cls[rows], ev.block[rows], ev.epoch[rows]
    thread = acc["thread"][rows]
    pair = _first_pair(cls, block, epoch, thread)
    if pair is None:
        return None
    i, j = rows[pair[0]], rows[pair[1]]
    array_id, index, shared_block = layout.array_of(int(ev.loc[rows[0]]))
    entry = layout.arrays[array_id]
    first, second = _party(trace, acc, i), _party(trace, acc, j)
    kind = "WAW" if cls[pair[0]] != R and cls[pair[1]] != R else ("RAW" if cls[pair[1]] == R else "WAR")
    same_block = ev.block[i] == ev.block[j]
    same_warp = same_block and trace.threads["warp"][acc["thread"][i]] == trace.threads["warp"][acc["thread"][j]]
    scope = "same warp" if same_warp else ("same block" if same_block else "different blocks")
    coords = None if shared_block is None else _block_coords(trace, shared_block)
    across = entry["space"] == "global"
    pairs = _pair_count(cls, block, epoch, thread, across)
    race = Race(entry["name"], entry["space"], int(index), coords, kind, scope, first, second, pairs)
    # Benign: every racing pair is two plain writes, and all plain writes wrote one same value.
    writes = cls == P
    values = acc["value"][rows][writes]
    only_writes_race = _pair_count(cls[writes], block[writes], epoch[writes], thread[writes], across) == pairs
    return race, bool(only_writes_race and (values == values[0]).all())


def _first_pair(cls, block, epoch, thread) -> tuple[int, int] | None:
    """The first racing pair in time: the earliest event that races with an earlier one. Every
    racing pair holds a write or an atomic, so the search starts at the first one."""
    writes = np.flatnonzero(cls != R)
    if len(writes) == 0:
        return None
    start = max(1, int(writes[0]))
    for j in range(start, min(len(cls), start + MAX_EXAMPLE_EVENTS)):
        earlier = slice(0, j)
        concurrent = (block[earlier] != block[j]) | (epoch[earlier] == epoch[j])
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


def _pair_count(cls, block, epoch, thread, across_blocks: bool) -> int:
    """Racing pairs: conflicting pairs of events of different threads that no barrier orders.
    Conflicting = all pairs less read-read and atomic-atomic ones, counted from group sizes."""
    if len(cls) == 0:
        return 0
    epoch_span = int(epoch.max()) + 1
    thread_span = int(thread.max()) + 1
    group = block * epoch_span + epoch
    per_thread = group * thread_span + thread
    total = 0
    for mask, sign in ((np.ones(len(cls), bool), 1), (cls == R, -1), (cls == A, -1)):
        same_block = _sum_squared_counts(group[mask]) - _sum_squared_counts(per_thread[mask])
        total += sign * same_block // 2
        if across_blocks:
            n = int(mask.sum())
            total += sign * (n * n - _sum_squared_counts(block[mask])) // 2
    return total


def _sum_squared_counts(keys: np.ndarray) -> int:
    """Sum over distinct keys of (how many times it occurs) squared."""
    if len(keys) == 0:
        return 0
    ordered = np.sort(keys)
    edges = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1], [True]]))
    counts = np.diff(edges).astype(np.int64)
    return int((counts * counts).sum())


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


__all__ = ["Race", "RaceReport", "Party", "find_races", "READ", "WRITE", "ATOMIC"]


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
    space = race.space if race.block is None else f"shared, block {_dims(race.block)}"
    pairs = sum(r.pairs for r in group)
    return (
        f"{where} ({space}) {race.kind}, {race.scope}: {_who(race.first)} {race.first.access}, then "
        f"{_who(race.second)} {race.second.access}; {pairs:,} racing pair{'s' * (pairs != 1)}"
    )


def _who(party: Party) -> str:
    return f"block {_dims(party.block)} thread {_dims(party.thread)} line {party.line}"


def _dims(values) -> str:
    return "(" + ",".join(str(v) for v in values) + ")"
