"""Race detection: pure functions of a trace's access log.

Two accesses race when they touch the same location (global: array and element; shared: array,
block and element), come from different threads, at least one writes (an atomic counts as a
write, but two atomics never race), and no barrier orders them: they are in different blocks, or
in the same block with the same barrier epoch.

Counting the racing pairs is race_count.py's (a filter, then one bincount or sort of packed keys);
this module describes each racing location by its first racing pair in time, and writes the report.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from gpuviz.core.analysis.fence_order import FenceOrder
from gpuviz.core.analysis.race_count import A, Found, Layout, P, R, bits, racy_locations
from gpuviz.core.errors import GpuvizError
from gpuviz.core.launch import format_dims
from gpuviz.core.trace.columns import epoch_field
from gpuviz.core.trace.model import Trace

FEW_LOCATIONS = 16  # up to this many racy elements are picked out one by one, more by one sort
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

    def summary(self, recorded: tuple[int, int] | None = None) -> str:
        """`recorded`: (blocks whose accesses were recorded, blocks of the launch) where not every block's
        were: a race among the others cannot be seen, and the line says so."""
        found = "none found"
        if self.racy:
            arrays = self.arrays()
            found = f"{self.locations} location{'s' * (self.locations != 1)} in {len(arrays)} array" + (
                "s" * (len(arrays) != 1)
            )
        if recorded is not None:
            found += f" among the {recorded[0]:,} of {recorded[1]:,} blocks whose accesses were recorded"
        return f"races: {found}"


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
    layout = Layout(trace)
    order = None  # no epoch at all: no access came after a fence
    if layout.any_epochs:
        counting = trace.meta.get("counting_lines")
        order = FenceOrder.of(lambda: layout.element, trace.accesses, layout.per_block, counting)
    racy = racy_locations(layout) if order is None else _less_fence_ordered(layout, racy_locations(layout), order)
    limit = max_locations if count_benign else 2 * max_locations
    described = list(_describe(layout, racy[:limit], order))
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


def _less_fence_ordered(layout: Layout, found: Found, order: FenceOrder) -> Found:
    """The racing locations less the pairs a threadfence and an atomic order (fence_order.py): only pairs
    of two blocks, which the count took as racing, of global arrays."""
    kind = layout.trace.accesses["kind"]
    pairs, write_pairs = found.pairs.copy(), found.write_pairs.copy()
    global_ones = np.flatnonzero(found.copy < 0)
    spans = _rows_by_element(layout, found.rows, np.unique(found.element[global_ones]))
    for k in global_ones.tolist():
        rows = spans[int(found.element[k])]
        ordered = order.ordered(rows)
        if ordered is None:
            continue  # too many to compare: left racing (over-reported, never missed)
        cls = kind[rows]
        clash = ~(((cls[:, None] == R) & (cls[None, :] == R)) | ((cls[:, None] == A) & (cls[None, :] == A)))
        pairs[k] -= int((ordered & clash).sum())
        write_pairs[k] -= int((ordered & (cls[:, None] == P) & (cls[None, :] == P)).sum())
    keep = pairs > 0
    return Found(found.element[keep], found.copy[keep], pairs[keep], write_pairs[keep], found.rows)


# ---- describing racy locations ------------------------------------------------------------------
def _describe(layout: Layout, found: Found, order: FenceOrder | None = None):
    """(Race, benign) for each racing location, from that location's accesses in time order."""
    if len(found) == 0:
        return
    acc = layout.trace.accesses
    spans = _rows_by_element(layout, found.rows, np.unique(found.element))
    for key, copy, pairs, write_pairs in zip(found.element.tolist(), found.copy.tolist(), found.pairs.tolist(),
                                             found.write_pairs.tolist()):  # fmt: skip
        rows = spans[key]
        if copy >= 0:
            rows = rows[acc["thread"][rows] // layout.per_block == copy]
        race = _describe_location(layout, rows, None if copy < 0 else copy, pairs, write_pairs, order)
        if race is not None:
            yield race


def _rows_by_element(layout: Layout, rows: np.ndarray, wanted: np.ndarray) -> dict[int, np.ndarray]:
    """{element key: its rows among `rows`, in time order} for the wanted elements (the keys of these rows
    only: most launches never need every access's key)."""
    element = layout.element_of(rows)
    if len(wanted) <= FEW_LOCATIONS:  # e.g. a million threads on one counter: no sort at all
        return {int(key): rows[element == key] for key in wanted}
    mine = _member(element, wanted)
    rows, keys = _by_element_then_time(element[mine], rows[mine])
    bounds = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1], [True]]))
    return {int(keys[a]): rows[a:b] for a, b in zip(bounds[:-1], bounds[1:])}


def _member(values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """values in wanted, by a lookup table where the key space is small (much faster than isin)."""
    top = int(values.max()) + 1 if len(values) else 0
    if top > 1 << 27:
        return np.isin(values, wanted)
    table = np.zeros(top, bool)
    table[wanted[wanted < top]] = True
    return table[values]


def _by_element_then_time(element: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows reordered by element, keeping time order within an element; their elements): one sort of
    packed keys."""
    row_bits = bits(rows)
    if bits(element) + row_bits > 63:
        order = np.argsort(element, kind="stable")
        return rows[order], element[order]
    packed = np.sort((element << row_bits) | rows)
    return packed & ((1 << row_bits) - 1), packed >> row_bits


def _describe_location(layout: Layout, rows: np.ndarray, shared_block: int | None, pairs: int, write_pairs: int,
                       order: FenceOrder | None = None):  # fmt: skip
    trace, acc = layout.trace, layout.trace.accesses
    all_rows = rows
    writes = np.flatnonzero(acc["kind"][rows] != R)
    if len(writes) == 0:
        return None
    rows = rows[: int(writes[0]) + MAX_EXAMPLE_EVENTS + 1]  # the example pair is searched for no further
    thread = acc["thread"][rows].astype(np.int64)
    cls = acc["kind"][rows].astype(np.int64)
    block, epoch = thread // layout.per_block, acc["epoch"][rows].astype(np.int64)
    warp = thread // layout.warp_size  # global warp number: equal only within one block
    warp_epochs = layout.warp_epochs(rows)
    warp_epochs = np.zeros(len(rows), np.int32) if warp_epochs is None else warp_epochs
    fenced = None if order is None or shared_block is not None else order.ordered(rows)
    pair = _first_pair(cls, block, epoch_field(epoch, "block"), thread, warp, warp_epochs, fenced)
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
    return race, write_pairs == pairs and _one_value_written(acc, all_rows)


def _one_value_written(acc: dict, rows: np.ndarray) -> bool:
    """Benign, when every racing pair is two plain writes: all plain writes wrote one same value."""
    values = acc["value"][rows][acc["kind"][rows] == P]
    return len(values) > 0 and bool((values == values[0]).all())


def _first_pair(cls, block, epoch, thread, warp, warp_epoch, fenced=None) -> tuple[int, int] | None:
    """The first racing pair in time: the earliest event that races with an earlier one. Every
    racing pair holds a write or an atomic, so the search starts at the first one. `fenced[i, j]`:
    a threadfence and an atomic order row i before row j (fence_order.py)."""
    writes = np.flatnonzero(cls != R)
    if len(writes) == 0:
        return None
    start = max(1, int(writes[0]))
    for j in range(start, min(len(cls), start + MAX_EXAMPLE_EVENTS)):
        earlier = slice(0, j)
        ordered_in_warp = (warp[earlier] == warp[j]) & (warp_epoch[earlier] != warp_epoch[j])
        concurrent = (block[earlier] != block[j]) | ((epoch[earlier] == epoch[j]) & ~ordered_in_warp)
        if fenced is not None:
            concurrent &= ~fenced[:j, j]
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
def format_report(report: RaceReport, kernel: str, recorded: tuple[int, int] | None = None) -> str:
    """One line per group of neighbouring locations that race the same way (`recorded`: as in summary)."""
    first = report.summary(recorded)[len("races: ") :].replace("none found", "no races found", 1)
    if not report.racy and not report.benign and not report.divergence:
        return f"{kernel}: {first}"
    lines = [f"{kernel}: {first}"]
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
