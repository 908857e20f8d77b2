"""Named moments, threads and elements of a launch, found in its trace and replay: "the first write of
a[0]", "barrier 1", "wave 2", "the moment an update of a[0] is lost", "the thread that raced". Lessons
name the frames that prove their answer with these words (catalog/evidence.py). Pure, no Qt.

A moment is a replay cursor (`k`: after the first k events); most moments are one event of the access
log, and that event's thread is the thread the same words name.
"""

from __future__ import annotations

import re

import numpy as np

from gpuviz.core.analysis.report import race_report
from gpuviz.core.element_story import lost_write_rows
from gpuviz.core.errors import GpuvizError
from gpuviz.core.replay import Replay
from gpuviz.core.trace.columns import KIND_NAMES
from gpuviz.core.trace.model import Trace

Element = tuple[int, int, int | None]  # array id, flat index, block (a shared array's copy) or None

_ELEMENT = re.compile(r"^(?P<name>\w+)\[(?P<index>[\d,\s]+)\](?:\s+of block (?P<block>\d+))?$")
_ACCESS = re.compile(r"^(?P<which>first|last) (?P<kind>read|write|atomic|access) of (?P<target>.+)$")
_NUMBERED = re.compile(r"^(?P<unit>barrier|wave) (?P<n>\d+)$")
_THREAD = re.compile(r"^block (?P<block>[\d,\s]+) thread (?P<thread>[\d,\s]+)$")
MOMENTS = ("start", "end", "first|last read|write|atomic|access of a[i] (or of a, or of line N)", "barrier N",
           "wave N", "last block start", "lost update of a[i]", "race")  # fmt: skip
THREADS = ("N (a global id)", "block X,Y thread X,Y", "slowest", "fastest", "the words of any moment but "
           "start, end and barrier: its event's thread")  # fmt: skip


def element(trace: Trace, text: str) -> Element:
    """`a[3]`, `a[1, 2]` (NumPy order), `partial[0] of block 1` (a shared array's copy), or `race`:
    the element of the first race the analysis found."""
    text = text.strip()
    if text == "race":
        race = _first_race(trace)
        block = None if race.block is None else trace.block_linear(race.block)
        return trace.array_names().index(race.array), race.index, block
    match = _ELEMENT.match(text)
    if match is None:
        raise GpuvizError(f"element {text!r}: write `a[3]`, `a[1, 2]`, `a[0] of block 1` or `race`")
    aid = _array(trace, match.group("name"))
    entry = trace.meta["arrays"][aid]
    shape = tuple(entry["shape"]) or (1,)
    index = tuple(int(i) for i in match.group("index").split(","))
    if len(index) != len(shape) or any(not 0 <= i < n for i, n in zip(index, shape)):
        raise GpuvizError(f"element {text!r}: {entry['name']} has shape {shape}; give an index inside it")
    block = match.group("block")
    if entry["space"] == "shared":
        block = int(block or 0)
        if not 0 <= block < int(np.prod(trace.grid)):
            raise GpuvizError(f"element {text!r}: the launch has {int(np.prod(trace.grid))} blocks")
    elif block is not None:
        raise GpuvizError(f"element {text!r}: {entry['name']} is a global array; only shared arrays have a block")
    return aid, int(np.ravel_multi_index(index, shape)), None if block is None else int(block)


def moment(trace: Trace, replay: Replay, text: str) -> int:
    """The replay cursor the words name (see MOMENTS)."""
    text = text.strip()
    if text == "start":
        return 0
    if text == "end":
        return replay.events if replay is not None else 0
    position, _row = _event(trace, replay, text)
    return position


def names_a_thread_by_place(text: str) -> bool:
    """Words that name a thread without the access log: its global id, `block B thread T`, the
    slowest or the fastest."""
    text = text.strip()
    return text.isdigit() or _THREAD.match(text) is not None or text in ("slowest", "fastest")


def thread(trace: Trace, replay: Replay, text: str) -> int:
    """The global id of the thread the words name (see THREADS)."""
    text = text.strip()
    if text.isdigit():
        if int(text) >= trace.n_threads:
            raise GpuvizError(f"thread {text}: the launch has {trace.n_threads:,} threads")
        return int(text)
    match = _THREAD.match(text)
    if match is not None:
        block, inside = (_dims(match.group(g)) for g in ("block", "thread"))
        if any(b >= g for b, g in zip(block, trace.grid)) or any(t >= b for t, b in zip(inside, trace.block)):
            raise GpuvizError(f"thread {text!r}: outside the launch's grid {trace.grid} and block {trace.block}")
        return trace.global_id(block, inside)
    if text in ("slowest", "fastest"):
        duration = trace.threads["t_end"].astype(np.int64) - trace.threads["t_start"]
        return int(np.argmax(duration) if text == "slowest" else np.argmin(duration))
    if text in ("start", "end") or _NUMBERED.match(text) and text.startswith("barrier"):
        raise GpuvizError(f"thread {text!r}: names no one thread; threads: {'; '.join(THREADS)}")
    _position, row = _event(trace, replay, text)
    return int(trace.accesses["thread"][row])


def _event(trace: Trace, replay: Replay, text: str) -> tuple[int, int]:
    """(cursor, log row of the event that defines it) for the moments that are one event."""
    acc = trace.accesses
    if acc is None:
        raise GpuvizError(f"{text!r}: this launch was recorded without its accesses (level threads)")
    access, numbered = _ACCESS.match(text), _NUMBERED.match(text)
    if access is not None:
        rows = _access_rows(trace, access.group("kind"), access.group("target"))
        row = int(rows[0] if access.group("which") == "first" else rows[-1])
        return row + 1, row
    if numbered is not None:
        return _numbered(trace, replay, numbered.group("unit"), int(numbered.group("n")))
    if text == "last block start":
        block = acc["thread"].astype(np.int64) // int(np.prod(trace.block))
        firsts = np.unique(block, return_index=True)[1]
        row = int(firsts.max())
        return row + 1, row
    if text.startswith("lost update of "):
        aid, index, block = element(trace, text.removeprefix("lost update of "))
        lost = lost_write_rows(trace, aid, index, block)
        if len(lost) == 0:
            raise GpuvizError(f"{text!r}: no update of that element was lost in this launch")
        return int(lost[0]), int(lost[0])  # just before the write lands: all it will overwrite have read
    if text == "race":
        return _race_event(trace)
    raise GpuvizError(f"moment {text!r} is not known; moments: {'; '.join(MOMENTS)}")


def _access_rows(trace: Trace, kind: str, target: str) -> np.ndarray:
    acc = trace.accesses
    target = target.strip()
    if target.startswith("line "):
        mask = acc["line"] == int(target.removeprefix("line ")) if target[5:].strip().isdigit() else None
        if mask is None:
            raise GpuvizError(f"{target!r}: write `line N` with N a line of the script")
    elif "[" in target:
        aid, index, block = element(trace, target)
        mask = (acc["array"] == aid) & (acc["index"] == index)
        if block is not None:
            mask &= acc["thread"] // int(np.prod(trace.block)) == block
    else:
        mask = acc["array"] == _array(trace, target)
    if kind != "access":
        mask &= acc["kind"] == KIND_NAMES.index(kind)
    rows = np.flatnonzero(mask)
    if len(rows) == 0:
        raise GpuvizError(f"no {kind} of {target} in this launch")
    return rows


def _numbered(trace: Trace, replay: Replay, unit: str, n: int) -> tuple[int, int]:
    """Barrier n: the cursor where the n-th barrier opens (its row: the last thread to arrive).
    Wave n: the first event of wave n (counted from 1)."""
    acc = trace.accesses
    if unit == "wave":
        wave = replay.waves()[acc["thread"].astype(np.int64) // int(np.prod(trace.block))]
        rows = np.flatnonzero(wave == n - 1)
        if n < 1 or len(rows) == 0:
            raise GpuvizError(f"wave {n}: the launch ran in {int(replay.waves().max()) + 1} wave(s)")
        return int(rows[0]) + 1, int(rows[0])
    position = 0
    for _ in range(max(1, n)):
        position = replay.next_stop(position, "barrier")
    if n < 1 or position >= replay.events:
        raise GpuvizError(f"barrier {n}: the threads of this launch pass fewer barriers")
    return position, position - 1


def _first_race(trace: Trace):
    report = race_report(trace)
    if report is None or not report.races:
        raise GpuvizError("race: the race analysis found no race in this launch")
    return report.races[0]


def _race_event(trace: Trace) -> tuple[int, int]:
    """The second access of the first race: the one that came after the other thread's access."""
    race = _first_race(trace)
    acc = trace.accesses
    aid, index, block = element(trace, "race")
    mine = (acc["array"] == aid) & (acc["index"] == index)
    if block is not None:
        mine &= acc["thread"] // int(np.prod(trace.block)) == block
    first = mine & (acc["thread"] == trace.global_id(race.first.block, race.first.thread))
    second = mine & (acc["thread"] == trace.global_id(race.second.block, race.second.thread))
    second &= acc["kind"] == KIND_NAMES.index(race.second.access)
    after = np.flatnonzero(second)
    after = after[after > np.argmax(first)] if first.any() and (after > np.argmax(first)).any() else after
    return int(after[0]) + 1, int(after[0])


def _array(trace: Trace, name: str) -> int:
    names = trace.array_names()
    if name not in names:
        raise GpuvizError(f"no array {name!r} in this launch; its arrays: {', '.join(names)}")
    return names.index(name)


def _dims(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in text.replace(" ", "").split(",") if p]
    return tuple((parts + [0, 0, 0])[:3])
