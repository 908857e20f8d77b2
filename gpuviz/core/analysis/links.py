"""Who touched what: the queries the linked views ask of a trace's access log (pure functions)."""

from __future__ import annotations

import numpy as np

from gpuviz.core.trace.columns import READ, WRITE
from gpuviz.core.trace.model import Trace

PAIR_TABLE_MAX = 64 << 20  # (element, thread) pairs counted in a table of bytes up to this size


def _log(trace: Trace):
    if trace.accesses is None:
        return None
    return trace.accesses


def thread_accesses(trace: Trace, gid: int, before: int | None = None) -> dict[str, np.ndarray]:
    """The access-log rows of one thread (those among the first `before` events, when given)."""
    acc = _log(trace)
    if acc is None:
        return {}
    mine = acc["thread"] == gid
    if before is not None:
        mine[before:] = False
    return {name: column[mine] for name, column in acc.items()}


def line_counts(trace: Trace, gid: int | None = None) -> dict[int, int]:
    """Accesses per source line, of one thread or of all."""
    acc = _log(trace)
    if acc is None:
        return {}
    lines = acc["line"] if gid is None else acc["line"][acc["thread"] == gid]
    values, counts = np.unique(lines, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts)}


def elements_on_line(trace: Trace, line: int, array: int) -> np.ndarray:
    acc = _log(trace)
    if acc is None:
        return np.zeros(0, np.int64)
    return np.unique(acc["index"][(acc["line"] == line) & (acc["array"] == array)])


def writers(trace: Trace, array: int, size: int, block: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per element: the thread that wrote it last (-1: never written), and how many threads wrote
    it with plain (non-atomic) writes: several of those is what stands out."""
    last = np.full(size, -1, np.int64)
    count = np.zeros(size, np.int64)
    acc = _log(trace)
    if acc is None:
        return last, count
    # One mask, then the rows it picks: the app asks this of millions of events on a new trace,
    # so no column is widened or copied that the answer does not need.
    rows = acc["kind"] != READ
    rows &= acc["array"] == array
    if block is not None:
        rows &= acc["thread"] // int(np.prod(trace.block)) == block
    thread, index = acc["thread"][rows], acc["index"][rows]
    last[index] = thread  # rows are in time order: the last write wins
    plain = acc["kind"][rows] == WRITE
    if not plain.all():
        index, thread = index[plain], thread[plain]
    if len(index):
        count += _distinct_threads(index, thread, size)
    return last, count


def _distinct_threads(index: np.ndarray, thread: np.ndarray, size: int) -> np.ndarray:
    """Per element, how many distinct threads appear with it: a table of (element, thread) pairs
    where it is small (a race on a few elements by a million threads), else one sort of packed keys."""
    low = int(thread.min())
    span = int(thread.max()) - low + 1
    pairs = np.multiply(index, span, dtype=np.int64)
    pairs += thread
    pairs -= low
    if size * span <= PAIR_TABLE_MAX:
        seen = np.zeros(size * span, np.bool_)
        seen[pairs] = True
        return np.count_nonzero(seen.reshape(size, span), axis=1)
    pairs = np.sort(pairs)
    distinct = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])]
    return np.bincount(distinct // span, minlength=size)[:size]
