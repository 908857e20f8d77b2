"""Coalescing: the 32-byte sectors and 128-byte lines each global warp request touches.

Every array starts on a 256-byte boundary (as CUDA allocations do), so an element's byte address
within its array decides its sector. The ideal is the fewest sectors that could hold the distinct
bytes the request asked for: ceil(distinct elements x itemsize / 32).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.requests import Requests, pack
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
    one_size = n > 0 and bool((size == size[0]).all())
    byte = index.astype(np.int64) * (size[0] if one_size else size[requests.of_row])
    request, byte = _by_request(requests.of_row, byte)
    if len(request) == 0:
        empty = np.zeros(n, np.int64)
        return RequestCost(sectors=empty, lines=empty, ideal=empty)
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


def _by_request(request: np.ndarray, byte: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows ordered by (request, byte address). A log that holds each request's rows together
    (the simulator's does) needs no sort when their addresses ascend, or one within each request when
    its requests have equally many rows; any other log is sorted whole."""
    if len(request) < 2:
        return request, byte
    new = request[1:] != request[:-1]
    runs = np.flatnonzero(new) + 1
    together = len(runs) + 1 == len(np.unique(request[np.concatenate([[0], runs])]))
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
