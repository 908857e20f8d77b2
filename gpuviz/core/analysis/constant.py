"""Constant memory's cost: a warp request's turns are the distinct addresses its lanes read.

The constant cache serves one address per turn to every lane that asks for it (a broadcast): 32 lanes
reading one entry take one turn, 32 lanes reading 32 entries take 32 turns, one after another. The
count follows from the addresses alone, so it is exact on any backend that records them.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.requests import Requests, count_distinct


def request_turns(requests: Requests, index: np.ndarray) -> np.ndarray:
    """Turns of every request: the distinct elements (addresses) its rows read."""
    return count_distinct(requests.of_row, index.astype(np.int64), len(requests))
