"""Coalescing: the 32-byte sectors and 128-byte lines each global warp request touches.

Every array starts on a 256-byte boundary (as CUDA allocations do), so an element's byte address
within its array decides its sector. The ideal is the fewest sectors that could hold the distinct
bytes the request asked for: ceil(distinct elements x itemsize / 32).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.requests import Requests, pack, run_starts
from gpuviz.core.dtypes import itemsize_of
from gpuviz.core.trace.model import Trace

SECTOR, CACHE_LINE = 32, 128


@dataclass(frozen=True)
class RequestCost:
    """Per request: sectors and cache lines touched, and the ideal number of sectors."""

    sectors: np.ndarray
    lines: np.ndarray
    ideal: np.ndarray


def itemsizes(trace: Trace) -> np.ndarray:
    """Bytes per element of every array in meta["arrays"]."""
    return np.array([itemsize_of(a["dtype"], 4) for a in trace.meta.get("arrays", [])] or [1], np.int64)


def request_cost(trace: Trace, requests: Requests, index: np.ndarray) -> RequestCost:
    """Sectors, lines and ideal sectors of every request; `index` is the element of every row.

    With each request's rows together and their byte addresses ascending, a new sector, line or element
    starts wherever the request or the address's sector, line or element changes."""
    n = len(requests)
    size = itemsizes(trace)[requests.array]
    one_size = int(size[0]) if n and bool((size == size[0]).all()) else None
    if len(index) == 0:
        empty = np.zeros(n, np.int64)
        return RequestCost(sectors=empty, lines=empty, ideal=empty)
    consecutive = _consecutive(requests, index, one_size)
    if consecutive is not None:
        return consecutive
    byte = index.astype(np.int64) * (one_size or size[requests.of_row])
    request, byte = _by_request(requests.of_row, byte, n)
    runs = np.flatnonzero(np.concatenate([[True], request[1:] != request[:-1]]))
    of_run = request[runs]

    def count(unit: np.ndarray) -> np.ndarray:
        starts = np.concatenate([[True], unit[1:] != unit[:-1]])
        starts[runs] = True
        out = np.zeros(n, np.int64)
        out[of_run] = np.add.reduceat(starts.view(np.int8), runs)  # int8: a request has at most 32 rows
        return out

    elements = count(byte)
    return RequestCost(sectors=count(byte // SECTOR), lines=count(byte // CACHE_LINE),
                       ideal=-(-(elements * size) // SECTOR))  # fmt: skip


def _consecutive(requests: Requests, index: np.ndarray, size: int | None) -> RequestCost | None:
    """The cost where every request's rows are together and ask for consecutive elements, ascending
    (a coalesced access as the simulator logs it): its sectors and lines run from its first element's
    to its last's. None for any other log, or elements wider than a sector. Only the elements' steps
    are looked at row by row; byte addresses are needed at each request's ends alone."""
    n = len(requests)
    if size is None or size > SECTOR:
        return None
    starts = requests.runs if requests.runs is not None else run_starts(requests.of_row)
    if len(starts) != n:
        return None  # n runs of n requests, each with a row: each request is one run
    step = _steps_of_one(index)  # step[k]: row k+1 is row k's next element, or starts a request
    step[starts[1:] - 1] = True
    if not step[:-1].all():
        return None
    ends = np.append(starts[1:] - 1, len(index) - 1)  # each run's last row
    first, last = index[starts].astype(np.int64) * size, index[ends].astype(np.int64) * size
    of_run = requests.of_row[starts]
    out = [np.zeros(n, np.int64) for _ in range(3)]
    out[0][of_run] = last // SECTOR - first // SECTOR + 1
    out[1][of_run] = last // CACHE_LINE - first // CACHE_LINE + 1
    out[2][of_run] = -(-(ends - starts + 1) * size // SECTOR)
    return RequestCost(sectors=out[0], lines=out[1], ideal=out[2])


def _steps_of_one(index: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
    """Per row, whether the next row's element is this one's plus one (the last row: True). In chunks
    that stay in the cache: one difference of millions of int64 at once costs three times as much."""
    n = len(index)
    step = np.ones(n, bool)
    scratch = np.empty(min(chunk, max(n - 1, 0)), index.dtype)
    for at in range(0, n - 1, chunk):
        end = min(at + chunk, n - 1)
        np.subtract(index[at + 1 : end + 1], index[at:end], out=scratch[: end - at])
        np.equal(scratch[: end - at], 1, out=step[at:end])
    return step


def _by_request(request: np.ndarray, byte: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows ordered by (request, byte address). A log that holds each request's rows together
    (the simulator's does) needs no sort when their addresses ascend, or one within each request when
    its requests have equally many rows; any other log is sorted whole."""
    if len(request) < 2:
        return request, byte
    new = request[1:] != request[:-1]
    runs = np.flatnonzero(new) + 1
    together = len(runs) + 1 == n  # n runs of n requests, each with a row: each request is one run
    if together and bool(((byte[1:] >= byte[:-1]) | new).all()):
        return request, byte
    lengths = np.diff(np.concatenate([[0], runs, [len(request)]]))
    if together and bool((lengths == lengths[0]).all()):
        return request, np.sort(byte.reshape(-1, int(lengths[0])), axis=1).reshape(-1)
    key = pack(request, byte)
    if key is None:
        order = np.lexsort((byte, request))
        return request[order], byte[order]
    span = int(byte.max()) - int(byte.min()) + 1
    ordered = np.sort(key)
    return ordered // span, ordered % span + int(byte.min())


def lane_sectors(trace: Trace, array: int, index: np.ndarray) -> np.ndarray:
    """The sector (within its array) of each lane's element: what a warp's request draws."""
    return index.astype(np.int64) * itemsizes(trace)[array] // SECTOR
