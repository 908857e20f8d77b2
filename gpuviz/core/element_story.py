"""One element's story: who read and wrote it, in the order it happened, and which updates were lost.
This is the race, replayed: "thread 5 read 0.0; thread 6 read 0.0; thread 5 wrote 0.5; thread 6
wrote 0.5: one update lost"."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.outcomes import lost_per_element
from gpuviz.core.numbers import number
from gpuviz.core.trace.columns import ATOMIC, READ
from gpuviz.core.trace.model import Trace

MAX_CHAIN_EVENTS = 200_000  # beyond this many events on one element, lost writes are counted, not named


@dataclass(frozen=True)
class StoryRow:
    position: int  # cursor position just after this event
    time: int
    thread: int
    kind: str  # "read", "write", "atomic"
    value: float
    line: int
    lost: bool  # a write whose update the final value does not carry


@dataclass(frozen=True)
class StoryGroup:
    """Consecutive accesses that tell one thing: threads 0-31 read 0.0 on line 11."""

    first: StoryRow
    last: StoryRow
    count: int
    lost: int

    def threads(self) -> str:
        return f"{self.first.thread:,}" if self.count == 1 else f"{self.first.thread:,}-{self.last.thread:,}"


@dataclass(frozen=True)
class ElementStory:
    name: str
    index: int
    rows: list[StoryRow]  # the first `shown` events
    reads: int
    writes: int
    lost: int  # updates that did not make it into the final value (-1: unknown, too many events)
    initial: float
    final: float
    groups: list[StoryGroup]

    def summary(self) -> str:
        lost = "lost updates unknown" if self.lost < 0 else f"{self.lost:,} update{'s' * (self.lost != 1)} lost"
        return (f"{self.name}[{self.index}]: {self.reads:,} reads, {self.writes:,} writes, {lost}; "
                f"{number(self.initial)} before the launch, {number(self.final)} after")  # fmt: skip


def element_story(trace: Trace, array: int, index: int, block: int | None = None, shown: int = 40,
                  times: np.ndarray | None = None) -> ElementStory:  # fmt: skip
    """The accesses to one element (of one block's copy, for shared arrays), oldest first."""
    acc = trace.accesses
    entry = trace.meta["arrays"][array]
    mine = (acc["array"] == array) & (acc["index"] == index)
    if entry["space"] == "shared" and block is not None:
        mine &= acc["thread"] // int(np.prod(trace.block)) == block
    rows = np.flatnonzero(mine)
    kinds = acc["kind"][rows]
    # The log orders accesses of different threads only on the simulator (the GPU's is per thread).
    ordered = trace.meta.get("backend") != "gpu" or "time" in acc
    lost_rows = _lost_writes(kinds, acc["thread"][rows]) if ordered and len(rows) <= MAX_CHAIN_EVENTS else None
    when = times if times is not None else np.arange(len(acc["thread"]))
    lost_flags = lost_rows if lost_rows is not None else np.zeros(len(rows), bool)

    def row_at(i: int) -> StoryRow:
        r = rows[i]
        kind = ("read", "write", "atomic")[int(acc["kind"][r])]
        return StoryRow(int(r) + 1, int(when[r]), int(acc["thread"][r]), kind, float(acc["value"][r]),
                        int(acc["line"][r]), bool(lost_flags[i]))  # fmt: skip

    initial, final = _ends(trace, entry, index, acc, rows)
    writes = int((kinds != READ).sum())
    lost = int(lost_rows.sum()) if lost_rows is not None else -1
    if lost_rows is None and ordered and len(rows):  # too many to name each lost write: count them
        lost = int(lost_per_element(np.zeros(len(rows), np.int64), kinds, acc["thread"][rows])[1][0])
    starts = _group_starts(acc, rows)
    ends = np.append(starts[1:], len(rows))
    lost_in = np.add.reduceat(lost_flags.astype(np.int64), starts) if len(rows) else np.zeros(0, np.int64)
    groups = [StoryGroup(row_at(a), row_at(b - 1), int(b - a), int(n))
              for a, b, n in zip(starts[:shown].tolist(), ends[:shown].tolist(), lost_in[:shown].tolist())]  # fmt: skip
    first_rows = [row_at(i) for i in range(min(shown, len(rows)))]
    return ElementStory(entry["name"], index, first_rows, len(rows) - writes, writes, lost, initial, final, groups)


def lost_write_rows(trace: Trace, array: int, index: int, block: int | None = None) -> np.ndarray:
    """Log rows of the writes to one element (of one block's copy) that its final value does not carry."""
    acc = trace.accesses
    rows = np.flatnonzero((acc["array"] == array) & (acc["index"] == index))
    if block is not None and trace.meta["arrays"][array]["space"] == "shared":
        rows = rows[acc["thread"][rows] // int(np.prod(trace.block)) == block]
    return rows[_lost_writes(acc["kind"][rows], acc["thread"][rows])]


def _group_starts(acc: dict, rows: np.ndarray) -> np.ndarray:
    """Where runs begin: accesses of one kind, value and line by consecutive threads tell one thing
    ("threads 0-12,799 read 0.0")."""
    if len(rows) == 0:
        return np.zeros(0, np.int64)
    kind, value, line, thread = (acc[c][rows] for c in ("kind", "value", "line", "thread"))
    same = (kind[1:] == kind[:-1]) & (value[1:] == value[:-1]) & (line[1:] == line[:-1])
    same &= thread[1:].astype(np.int64) == thread[:-1].astype(np.int64) + 1
    return np.flatnonzero(np.concatenate([[True], ~same]))


def _ends(trace: Trace, entry: dict, index: int, acc: dict, rows: np.ndarray) -> tuple[float, float]:
    name = entry["name"]
    if name in trace.args:
        return float(trace.before(name).reshape(-1)[index]), float(trace.after(name).reshape(-1)[index])
    written = rows[acc["kind"][rows] != READ]
    return float("nan"), float(acc["value"][written[-1]]) if len(written) else float("nan")


def _lost_writes(kind: np.ndarray, thread: np.ndarray) -> np.ndarray:
    """Per event, whether it is a write the final value does not carry.

    A plain write continues the version its thread last read; an atomic continues the current one.
    The final value's chain runs back from the last write; every write off that chain was lost.
    """
    version = 0  # how many writes have landed so far
    seen: dict[int, int] = {}  # thread -> version it last read
    parent: list[int] = []  # per write: the write it continued (-1: the initial value)
    write_rows: list[int] = []
    for i, (k, t) in enumerate(zip(kind.tolist(), thread.tolist())):
        if k == READ:
            seen[t] = version
            continue
        base = version if k == ATOMIC else seen.get(t, version)
        parent.append(base - 1)
        write_rows.append(i)
        version += 1
    carried = np.zeros(len(write_rows), bool)
    node = len(write_rows) - 1
    while node >= 0:
        carried[node] = True
        node = parent[node]
    lost = np.zeros(len(kind), bool)
    lost[np.array(write_rows, np.int64)[~carried]] = True
    return lost

