"""Coalescing: the 32-byte sectors and 128-byte lines each global warp request touches.

Every array starts on a 256-byte boundary (as CUDA allocations do), so an element's byte address
within its array decides its sector. The ideal is the fewest sectors that could hold the distinct
bytes the request asked for: ceil(distinct elements x itemsize / 32). Counted request by request in
request_costs.py (compiled).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.memory_units import SECTOR
from gpuviz.core.analysis.requests import Requests
from gpuviz.core.dtypes import itemsize_of
from gpuviz.core.trace.model import Trace


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
    """Sectors, lines and ideal sectors of every request; `index` is the element of every row."""
    from gpuviz.core.analysis.request_costs import GLOBAL, request_costs  # numba: on first use, not with the app

    n = len(requests)
    sectors, lines, ideal = request_costs(requests.of_row, n, requests.spans(), index, np.zeros(0, np.int64),
                                          np.full(n, GLOBAL), itemsizes(trace)[requests.array])  # fmt: skip
    return RequestCost(sectors=sectors, lines=lines, ideal=ideal)


def lane_sectors(trace: Trace, array: int, index: np.ndarray) -> np.ndarray:
    """The sector (within its array) of each lane's element: what a warp's request draws."""
    return index.astype(np.int64) * itemsizes(trace)[array] // SECTOR
