"""Marks: the threads and elements a lesson's claim is about, found in the launch and drawn over the grid
and data pictures with a call-out that says what they have in common ("264 threads read array[0]: all
saw 0"). Lessons name them in words (catalog/evidence.py, `mark:` lines); resolving is pure, no Qt, and
every word is checked against the trace. Call-outs are computed from the trace, never written by hand.

    the thread                               the selected thread
    the element                              the selected element, with its value at the cursor
    readers of ELEMENT                       threads that read it (by the cursor, where there is one)
    writers of ELEMENT                       threads that wrote it or updated it atomically (by the cursor)
    elements of NAME read by the thread      the selected thread's reads of an array (the whole launch)
    elements of NAME written by the thread   ... and its writes
    threads on the line                      threads that access the evidence's `line:` (the whole launch)
    threads that wrote nothing               in the whole launch, or `... in the thread's block`
    threads with a memory error              the faulting threads the trace lists
    threads waiting at a barrier             at the cursor, in the replay
    warp of the thread / block of the thread
    slowest threads                          the threads that ran longest, with the fastest for scale
    copies of NAME                           every element of an array, with what crossed between host and device
                                             for it with the launch (copied in and back, or not copied)
    copies, kernels, the compile, overlap    spans of the stream timeline (core/stream_marks.py)

ELEMENT is `a[3]`, `a[1, 2]`, `a[0] of block 1` or `the element`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core import moments, stream_marks
from gpuviz.core.errors import GpuvizError
from gpuviz.core.numbers import number
from gpuviz.core.replay import AT_BARRIER, Replay
from gpuviz.core.streams import timeline_of
from gpuviz.core.trace.columns import READ
from gpuviz.core.trace.model import Trace

KINDS = ("the thread", "the element", "readers of ELEMENT", "writers of ELEMENT",
         "elements of NAME read by the thread", "elements of NAME written by the thread",
         "threads on the line", "threads that wrote nothing [in the thread's block]", "threads with a memory error",
         "threads waiting at a barrier", "warp of the thread", "block of the thread", "slowest threads",
         "copies of NAME")  # fmt: skip


@dataclass(frozen=True, eq=False)  # eq=False: arrays inside; two marks are the same only if they are one object
class Mark:
    """Threads (global ids) or elements (flat indices of one array, a shared array's copy of `block`)
    to outline, and the call-out beside them."""

    label: str
    threads: np.ndarray | None = None
    array: int = -1
    elements: np.ndarray | None = None
    block: int | None = None
    spans: tuple[int, ...] | None = None  # spans of the stream timeline (core/stream_marks.py)

    @property
    def count(self) -> int:
        ids = self.threads if self.threads is not None else self.elements
        ids = self.spans if ids is None else ids
        return 0 if ids is None else len(ids)


@dataclass(frozen=True)
class Focus:
    """What the marks are resolved against: the cursor, the selected thread and element."""

    frame: int | None = None  # replay cursor; None: the whole launch
    thread: int = -1
    element: tuple[int, int, int | None] | None = None
    line: int = 0


def resolve_mark(text: str, trace: Trace, replay: Replay | None, focus: Focus) -> Mark:
    """The mark the words name; a GpuvizError says which word the launch does not have."""
    text = " ".join(text.split())
    if text == "the thread":
        gid = _selected(focus, text)
        return Mark(thread_name(trace, gid), threads=np.array([gid]))
    if text == "the element":
        return _element_mark(trace, replay, focus, _chosen(focus, text))
    for prefix, kinds in (("readers of ", (READ,)), ("writers of ", (1, 2))):
        if text.startswith(prefix):
            return _touching(trace, replay, focus, _element(trace, focus, text.removeprefix(prefix)), kinds)
    if text.startswith("elements of ") and text.endswith(("read by the thread", "written by the thread")):
        name, _, rest = text.removeprefix("elements of ").partition(" ")
        return _thread_elements(trace, _selected(focus, text), name, rest.startswith("read"))
    if text.startswith("threads that wrote nothing"):
        where = text.removeprefix("threads that wrote nothing").strip()
        if where not in ("", "in the thread's block"):
            raise GpuvizError(f"mark {text!r}: write `threads that wrote nothing` or add `in the thread's block`")
        return _idle(trace, _selected(focus, text) if where else -1)
    if text == "threads on the line":
        return _on_line(trace, focus.line)
    if text == "threads with a memory error":
        return _faulting(trace)
    if text == "threads waiting at a barrier":
        return _waiting(trace, replay, focus)
    if text in ("warp of the thread", "block of the thread"):
        return _group(trace, _selected(focus, text), text.split()[0])
    if text == "slowest threads":
        return _slowest(trace)
    if text.startswith("copies of "):
        return _copies(trace, text.removeprefix("copies of "))
    if text in stream_marks.KINDS:
        spans, callout = stream_marks.resolve_spans(text, timeline_of(trace))
        return Mark(callout, spans=spans)
    raise GpuvizError(f"mark {text!r} is not known; marks: {'; '.join(KINDS + stream_marks.KINDS)}")


def thread_name(trace: Trace, gid: int) -> str:
    """"thread 44 of block 1", "thread (3, 0, 2) of block (2, 1, 1)": as the launch's dimensions read."""
    dims = 3 if trace.grid[2] > 1 or trace.block[2] > 1 else 2 if trace.grid[1] > 1 or trace.block[1] > 1 else 1

    def coords(column: str) -> str:
        values = [int(v) for v in trace.threads[column][gid][:dims]]
        return str(values[0]) if dims == 1 else f"({', '.join(map(str, values))})"

    return f"thread {coords('thread_idx')} of block {coords('block_idx')}"


def element_name(trace: Trace, element: tuple[int, int, int | None]) -> str:
    """`array[0]`, `A[0, 3]`, `partial[1] of block 2`."""
    aid, index, block = element
    entry = trace.meta["arrays"][aid]
    shape = tuple(entry["shape"]) or (1,)
    where = ", ".join(str(int(i)) for i in np.unravel_index(index, shape))
    return f"{entry['name']}[{where}]" + (f" of block {block}" if block is not None else "")


# ---- each kind -------------------------------------------------------------------------------------
def _selected(focus: Focus, text: str) -> int:
    if focus.thread < 0:
        raise GpuvizError(f"mark {text!r}: give the evidence a `thread:` line")
    return focus.thread


def _chosen(focus: Focus, text: str) -> tuple[int, int, int | None]:
    if focus.element is None:
        raise GpuvizError(f"mark {text!r}: give the evidence an `element:` line")
    return focus.element


def _element(trace: Trace, focus: Focus, words: str) -> tuple[int, int, int | None]:
    return _chosen(focus, words) if words == "the element" else moments.element(trace, words)


def _log(trace: Trace, what: str) -> dict:
    if trace.accesses is None:
        raise GpuvizError(f"mark {what!r}: this launch was recorded without its accesses (level threads)")
    return trace.accesses


def _rows_of(trace: Trace, element: tuple[int, int, int | None], focus: Focus) -> np.ndarray:
    """Log rows of an element's accesses before the cursor."""
    acc = _log(trace, element_name(trace, element))
    aid, index, block = element
    end = len(acc["thread"]) if focus.frame is None else min(focus.frame, len(acc["thread"]))
    mine = (acc["array"][:end] == aid) & (acc["index"][:end] == index)
    if block is not None:
        mine &= acc["thread"][:end] // int(np.prod(trace.block)) == block
    return np.flatnonzero(mine)


def _element_mark(trace: Trace, replay: Replay | None, focus: Focus, element) -> Mark:
    aid, index, block = element
    label = element_name(trace, element)
    if replay is not None:
        at = replay.events if focus.frame is None else focus.frame
        label += f" = {number(replay.values_at(aid, at, block)[index])}"
    return Mark(label, array=aid, elements=np.array([index]), block=block)


def _touching(trace: Trace, replay: Replay | None, focus: Focus, element, kinds: tuple[int, ...]) -> Mark:
    acc = _log(trace, element_name(trace, element))
    rows = _rows_of(trace, element, focus)
    rows = rows[np.isin(acc["kind"][rows], kinds)]
    name = element_name(trace, element)
    if len(rows) == 0:
        verb = "read" if kinds == (READ,) else "wrote"
        raise GpuvizError(f"mark: no thread {verb} {name} {'by the cursor' if focus.frame is not None else ''}".strip())
    threads = np.unique(acc["thread"][rows].astype(np.int64))
    values = acc["value"][rows]
    low, high = float(values.min()), float(values.max())
    seen = number(low) if low == high else f"{number(low)} to {number(high)}"
    reading = kinds == (READ,)
    if len(threads) == 1:
        who = thread_name(trace, int(threads[0]))
        label = f"{who} read {name}: saw {seen}" if reading else f"{who} wrote {name} = {seen}"
    else:
        every = "all " if low == high else ""
        label = f"{_threads(len(threads))} read {name}: {every}saw {seen}" if reading else (
            f"{_threads(len(threads))} wrote {name}: {every}wrote {seen}")  # fmt: skip
    return Mark(label, threads=threads)


def _on_line(trace: Trace, line: int) -> Mark:
    acc = _log(trace, "threads on the line")
    if line <= 0:
        raise GpuvizError("mark 'threads on the line': give the evidence a `line:` line")
    rows = np.flatnonzero(acc["line"] == line)
    if len(rows) == 0:
        raise GpuvizError(f"mark 'threads on the line': no access of this launch is on line {line}")
    threads = np.unique(acc["thread"][rows].astype(np.int64))
    kinds = set(int(k) for k in np.unique(acc["kind"][rows]))
    verb = "read" if kinds == {READ} else "write" if READ not in kinds else "access memory"
    return Mark(f"{_threads(len(threads))} {verb} on line {line}", threads=threads)


def _thread_elements(trace: Trace, gid: int, name: str, reads: bool) -> Mark:
    acc = _log(trace, name)
    names = trace.array_names()
    if name not in names:
        raise GpuvizError(f"mark: no array {name!r} in this launch; its arrays: {', '.join(names)}")
    aid = names.index(name)
    kind = acc["kind"] == READ if reads else acc["kind"] != READ
    rows = np.flatnonzero((acc["thread"] == gid) & (acc["array"] == aid) & kind)
    verb = "reads" if reads else "writes"
    if len(rows) == 0:
        raise GpuvizError(f"mark: {thread_name(trace, gid)} {verb} no element of {name}")
    elements = np.unique(acc["index"][rows].astype(np.int64))
    block = gid // int(np.prod(trace.block)) if trace.meta["arrays"][aid]["space"] == "shared" else None
    label = f"{thread_name(trace, gid)} {verb} these {number(len(elements))} of {name}"
    return Mark(label, array=aid, elements=elements, block=block)


def _idle(trace: Trace, gid: int) -> Mark:
    acc = _log(trace, "threads that wrote nothing")
    wrote = np.zeros(trace.n_threads, bool)
    wrote[acc["thread"][acc["kind"] != READ]] = True
    per_block = int(np.prod(trace.block))
    candidates = np.arange(trace.n_threads) if gid < 0 else np.arange(gid // per_block * per_block,
                                                                     (gid // per_block + 1) * per_block)  # fmt: skip
    recorded = trace.meta.get("recorded_blocks")
    if recorded is not None:  # blocks whose accesses were not kept cannot be said to have written nothing
        candidates = candidates[np.isin(candidates // per_block, np.asarray(recorded))]
    idle = candidates[~wrote[candidates]]
    if len(idle) == 0:
        raise GpuvizError("mark: every thread there wrote something")
    where = "" if gid < 0 else f" of block {_block_words(trace, gid)}"
    return Mark(f"{_threads(len(idle))}{where} write nothing", threads=idle)


def _faulting(trace: Trace) -> Mark:
    threads = np.unique(np.array([int(e["thread"]) for e in trace.errors if "thread" in e], np.int64))
    if len(threads) == 0:
        raise GpuvizError("mark: no thread of this launch hit a memory error")
    total = trace.error_count
    listed = "" if total <= len(threads) else f" ({number(total)} errors, the first listed)"
    return Mark(f"{_threads(len(threads))} with a memory error{listed}", threads=threads)


def _waiting(trace: Trace, replay: Replay | None, focus: Focus) -> Mark:
    if replay is None or focus.frame is None:
        raise GpuvizError("mark 'threads waiting at a barrier': give the evidence an `at:` line (a replay moment)")
    states = replay.thread_states(focus.frame).state
    threads = np.flatnonzero(states == AT_BARRIER).astype(np.int64)
    if len(threads) == 0:
        raise GpuvizError("mark: no thread waits at a barrier at that moment")
    return Mark(f"{_threads(len(threads))} wait at the barrier", threads=threads)


def _group(trace: Trace, gid: int, unit: str) -> Mark:
    per_block = int(np.prod(trace.block))
    first = gid // per_block * per_block
    members = np.arange(first, first + per_block)
    if unit == "warp":
        members = members[trace.threads["warp"][members] == trace.threads["warp"][gid]]
        label = f"warp {int(trace.threads['warp'][gid])} of block {_block_words(trace, gid)}: {len(members)} lanes"
    else:
        label = f"block {_block_words(trace, gid)}: {number(per_block)} threads"
    return Mark(label, threads=members.astype(np.int64))


def _slowest(trace: Trace) -> Mark:
    duration = trace.threads["t_end"].astype(np.int64) - trace.threads["t_start"]
    if len(duration) == 0:
        raise GpuvizError("mark 'slowest threads': the launch has no threads")
    longest, shortest = int(duration.max()), int(duration.min())
    threads = np.flatnonzero(duration == longest).astype(np.int64)
    unit = trace.meta.get("time_unit", "tick")
    if longest == shortest:
        label = f"every thread takes {duration_words(longest, unit)}"
    else:
        label = f"{_threads(len(threads))} take {duration_words(longest, unit)} (the fastest: {number(shortest)})"
    return Mark(label, threads=threads)


def _copies(trace: Trace, name: str) -> Mark:
    """An argument's elements, and whether numba copied it in and back with the launch (core/copies.py)."""
    names = trace.array_names()
    if name not in names:
        raise GpuvizError(f"mark 'copies of {name}': the launch has no array {name!r} (its arrays: {', '.join(names)})")
    if "host_copies" not in trace.meta:
        raise GpuvizError(f"mark 'copies of {name}': this trace does not record its copies")
    copied = {entry["array"]: int(entry["bytes"]) for entry in trace.meta["host_copies"]}
    if name in copied:
        label = f"{name}: copied in before the launch and back after it, {number(copied[name])} bytes each way"
    else:
        label = f"{name}: in device memory already: not copied"
    aid = names.index(name)
    size = int(np.prod(trace.meta["arrays"][aid]["shape"]))
    return Mark(label, array=aid, elements=np.arange(size, dtype=np.int64))


def duration_words(amount: int, unit: str) -> str:
    """A time with where it comes from: the simulator's ticks are its model's cycles, the GPU's are measured."""
    if unit == "tick":
        return f"{number(amount)} cycles (model)"
    return f"{number(amount)} {unit} (measured)"


def _block_words(trace: Trace, gid: int) -> str:
    dims = 3 if trace.grid[2] > 1 else 2 if trace.grid[1] > 1 else 1
    values = [int(v) for v in trace.threads["block_idx"][gid][:dims]]
    return str(values[0]) if dims == 1 else f"({', '.join(map(str, values))})"


def _threads(n: int) -> str:
    return f"{number(n)} thread{'s' if n != 1 else ''}"
