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

    One sort of (request, byte address) serves all three counts: along it, a new sector, line or
    element starts wherever the request or the address's sector, line or element changes."""
    n = len(requests)
    size = itemsizes(trace)[requests.array]
    byte = index.astype(np.int64) * size[requests.of_row]
    key = pack(requests.of_row, byte)
    if key is None:
        order = np.lexsort((byte, requests.of_row))
        request, byte = requests.of_row[order], byte[order]
    else:
        span = int(byte.max()) - int(byte.min()) + 1
        ordered = np.sort(key)
        request, byte = ordered // span, ordered % span + int(byte.min())
    new_request = np.concatenate([[True], request[1:] != request[:-1]])

    def count(unit: np.ndarray) -> np.ndarray:
        starts = new_request | np.concatenate([[True], unit[1:] != unit[:-1]])
        return np.bincount(request, weights=starts, minlength=n).astype(np.int64)

    elements = count(byte)
    return RequestCost(sectors=count(byte // SECTOR), lines=count(byte // CACHE_LINE),
                       ideal=-(-(elements * size) // SECTOR))  # fmt: skip


def lane_sectors(trace: Trace, array: int, index: np.ndarray) -> np.ndarray:
    """The sector (within its array) of each lane's element: what a warp's request draws."""
    return index.astype(np.int64) * itemsizes(trace)[array] // SECTOR
