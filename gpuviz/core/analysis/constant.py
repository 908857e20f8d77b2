"""Constant memory's cost: a warp request's turns are the distinct addresses its lanes read.

The constant cache serves one address per turn to every lane that asks for it (a broadcast): 32 lanes
reading one entry take one turn, 32 lanes reading 32 entries take 32 turns, one after another. The
count follows from the addresses alone, so it is exact on any backend that records them.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.requests import Requests


def request_turns(requests: Requests, index: np.ndarray) -> np.ndarray:
    """Turns of every request: the distinct elements (addresses) its rows read (request_costs.py)."""
    from gpuviz.core.analysis.request_costs import CONST, request_costs  # numba: on first use, not with the app

    n = len(requests)
    ones = np.ones(n, np.int64)
    return request_costs(requests.of_row, n, requests.spans(), index, np.zeros(0, np.int64), ones * CONST, ones)[0]
