"""Warp-level memory requests: which access-log rows one executed warp instruction made together.

A request is one warp's execution of one access site (source line, array, read/write/atomic): the
lanes of a warp that executed that site for their k-th time form the k-th request of that site.
This is how lanes line up on hardware, where they reconverge after a branch, and it needs nothing
but each thread's own order of accesses, which every backend and schedule keeps (the sequential
schedule runs one thread at a time and the GPU log has no common clock, so time cannot group them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.memory_units import WARP
from gpuviz.core.trace.model import Trace


@dataclass(frozen=True)
class Requests:
    """Access-log rows grouped into warp requests; `of_row` maps every row to its request."""

    of_row: np.ndarray  # request of every access-log row (int64, or the engine's own int32 numbers)
    warp: np.ndarray  # per request: global warp number (block * warps per block + warp in block)
    line: np.ndarray  # per request: source line
    array: np.ndarray  # per request: index into meta["arrays"]
    kind: np.ndarray  # per request: READ, WRITE or ATOMIC
    lanes: np.ndarray  # per request: how many rows (lanes) it holds
    # Where each request's rows are together in of_row (the vector engine's log): the first row of each
    # request (its rows are runs[q] .. runs[q] + lanes[q] - 1); None where that is not known (then
    # request_costs.py orders the rows by request itself).
    runs: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.warp)

    def spans(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(first row, end) of every request whose rows are together (`runs`), else None."""
        return None if self.runs is None else (self.runs, self.runs + self.lanes)


def dense_ids(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(id of every row, first row of every id): equal tuples of the columns get equal ids,
    numbered in sorted order of the tuples. The columns are packed into one int64 key where they fit;
    a key of small range is numbered through a table, a wide one by sorting (no argsort: slower)."""
    n = len(columns[0]) if columns else 0
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    key = columns[0] if len(columns) == 1 else pack(*columns)
    if key is None:
        order = np.lexsort(columns[::-1])
        changed = np.zeros(n - 1, bool)
        for column in columns:
            changed |= column[order][1:] != column[order][:-1]
        ids = np.empty(n, np.int64)
        ids[order] = np.cumsum(np.concatenate([[True], changed])) - 1
    else:
        low, span = key.min(), int(key.max()) - int(key.min()) + 1
        if span <= 4 * n + 1024:
            present = np.zeros(span, bool)
            offset = (key - low).astype(np.int64)
            present[offset] = True
            ids = (np.cumsum(present) - 1)[offset]
        else:
            ids = np.searchsorted(sorted_unique(key), key).astype(np.int64)
    first = np.empty(int(ids.max()) + 1, np.int64)
    first[ids[::-1]] = np.arange(n - 1, -1, -1)  # the last write wins: each id's first row
    return ids, first


def pack(*columns: np.ndarray) -> np.ndarray | None:
    """The columns as one int64 per row (mixed radix over their ranges), or None if it needs over 62 bits."""
    key = np.zeros(len(columns[0]), np.int64)
    bits = 0
    for column in columns:
        low = int(column.min())
        span = int(column.max()) - low + 1
        bits += max(1, span - 1).bit_length()
        if bits > 62:
            return None
        key = key * span + (column.astype(np.int64) - low)
    return key


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique by sorting (NumPy's hash-based unique is far slower on millions of int64 keys)."""
    ordered = np.sort(values)
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


def global_warp(trace: Trace, thread: np.ndarray) -> np.ndarray:
    """Global warp number of each global thread id."""
    per_block = int(np.prod(trace.block))
    warps_per_block = -(-per_block // WARP)
    thread = thread.astype(np.int64)
    return (thread // per_block) * warps_per_block + (thread % per_block) // WARP


def group_requests(trace: Trace, rows: np.ndarray | None = None, ordered: bool = True) -> Requests:
    """The warp requests of the access log, or of the given rows of it (e.g. one warp's rows): as the
    engine numbered them while it logged (Trace.requests) where it did, else grouped from the rows.
    Numbered by (warp, site, k-th execution); `ordered=False`: in any order (the same requests)."""
    logged = logged_requests(trace)
    mine = logged if logged is None or rows is None else logged[rows]
    if mine is not None and len(mine):
        return _numbered(trace, mine, rows, ordered)
    acc = trace.accesses
    rows = np.arange(len(acc["thread"])) if rows is None else rows
    thread = acc["thread"][rows]
    line, array, kind = acc["line"][rows], acc["array"][rows], acc["kind"][rows]
    site, site_first = dense_ids(line, array, kind)
    occurrence = _occurrence(thread, site)
    warp = global_warp(trace, thread)
    of_row, first = dense_ids(warp, site, occurrence)
    return Requests(
        of_row=of_row,
        warp=warp[first],
        line=line[first].astype(np.int64),
        array=array[first].astype(np.int64),
        kind=kind[first].astype(np.int64),
        lanes=np.bincount(of_row, minlength=len(first)),
    )


def _occurrence(thread: np.ndarray, site: np.ndarray) -> np.ndarray:
    """For every row, how many times its thread had executed its site before (in log order)."""
    if len(thread) == 0:
        return np.zeros(0, np.int64)
    key = thread.astype(np.int64) * (int(site.max()) + 1) + site
    order = np.argsort(key, kind="stable")  # stable: each thread's own order of accesses is kept
    sorted_key = key[order]
    starts = np.flatnonzero(np.concatenate([[True], sorted_key[1:] != sorted_key[:-1]]))
    run_start = np.repeat(starts, np.diff(np.append(starts, len(key))))
    occurrence = np.empty(len(key), np.int64)
    occurrence[order] = np.arange(len(key)) - run_start
    return occurrence


def logged_requests(trace: Trace) -> np.ndarray | None:
    """The engine's request of every access-log row, if it handed one over for this log."""
    logged, acc = trace.requests, trace.accesses
    return logged if logged is not None and acc is not None and len(logged) == len(acc["thread"]) else None


def _no_columns(columns: tuple) -> tuple:
    """The columns as request_runs takes them when it is not to read them: empty, of the same types."""
    return (*(column[:0] for column in columns[:4]), *columns[4:])


def _numbered(trace: Trace, logged: np.ndarray, rows: np.ndarray | None, ordered: bool) -> Requests:
    """Requests from the engine's numbers; `ordered`: renumbered in group_requests' order (by warp, site,
    and the k-th execution, which is the order of their first rows), so both give the very same Requests.
    A request's rows are together in the engine's log (its lanes of one warp share a time and keep their
    order), so first rows come from the runs of equal numbers (request_costs.request_runs, compiled)."""
    from gpuviz.core.analysis.request_costs import first_row_fields, request_runs  # numba: on first use

    acc = trace.accesses
    per_block = int(np.prod(trace.block))
    columns = (acc["thread"], acc["line"], acc["array"], acc["kind"], per_block, -(-per_block // WARP))
    # A whole log's fields are read as its runs are found; a part's rows are another log's.
    runs, first, lanes, fields = request_runs(logged, *(columns if rows is None else _no_columns(columns)))
    present = np.flatnonzero(first >= 0)
    together = len(present) == runs  # one run a request
    dense = rows is None and len(present) == len(first)  # a whole log's requests: numbered 0, 1, 2, ...
    if not dense:
        first, lanes = first[present], lanes[present]
        fields = fields[:, present] if rows is None else first_row_fields(rows[first], *columns)
    warp, line, array, kind = fields
    if not ordered and dense:
        of_row = logged  # the engine's numbers as they are: a copy to int64 would cost a pass of its own
        return Requests(of_row=of_row, warp=warp, line=line, array=array, kind=kind, lanes=lanes,
                        runs=first if together else None)  # fmt: skip
    order = np.lexsort((first, kind, array, line, warp)) if ordered else np.arange(len(first))
    rank = np.zeros(int(present[-1]) + 1, np.int64)
    rank[(np.arange(len(first)) if dense else present)[order]] = np.arange(len(order))
    of_row = rank[logged]
    return Requests(of_row=of_row, warp=warp[order], line=line[order], array=array[order], kind=kind[order],
                    lanes=lanes[order], runs=first[order] if together else None)  # fmt: skip
