"""Shared-memory bank conflicts: 32 banks of 4-byte words; the conflict degree of a warp request
is the most distinct words any one bank must serve (lanes reading one word share it: a broadcast).

Accesses wider than 4 bytes are served in phases (64-bit: per half-warp, 128-bit: per quarter-warp),
so only lanes of the same phase can conflict; each lane then touches itemsize / 4 words. Counted
request by request in request_costs.py (compiled).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpuviz.core.analysis.coalescing import itemsizes
from gpuviz.core.analysis.memory_units import BANKS, WORD
from gpuviz.core.analysis.requests import Requests
from gpuviz.core.trace.model import Trace


def lane_words(trace: Trace, array: np.ndarray, index: np.ndarray, lane: np.ndarray):
    """(row, word, bank, phase) of every 4-byte word each row touches; `row` says which row."""
    size = itemsizes(trace)[array]
    words_per_lane = np.maximum(1, size // WORD)
    row = np.repeat(np.arange(len(index)), words_per_lane)
    first_word = index.astype(np.int64) * size // WORD
    within = np.arange(len(row)) - np.repeat(np.cumsum(words_per_lane) - words_per_lane, words_per_lane)
    word = first_word[row] + within
    lanes_per_phase = BANKS * WORD // np.maximum(WORD, size)
    phase = lane[row] // lanes_per_phase[row]
    return row, word, word % BANKS, phase


def conflict_degree(trace: Trace, requests: Requests, index: np.ndarray, lane: np.ndarray) -> np.ndarray:
    """Per request: the most distinct words one bank serves in one phase (1 = no conflict)."""
    return bank_cost(trace, requests, index, lane)[0]


def bank_cost(trace: Trace, requests: Requests, index: np.ndarray, lane: np.ndarray | Callable[[], np.ndarray]):
    """Per request: (conflict degree, wavefronts, ideal wavefronts). A phase takes as many wavefronts
    as the most distinct words one bank serves in it; the ideal is one a phase with lanes in it, so
    bank conflicts are wavefronts - ideal (Nsight Compute's l1tex__data_bank_conflicts_*). `lane`: each
    row's lane, or a function that gives them (one-word elements never need them)."""
    from gpuviz.core.analysis.request_costs import SHARED, request_costs  # numba: on first use, not with the app

    n, size = len(requests), itemsizes(trace)[requests.array]
    if callable(lane):
        lane = lane() if (size > WORD).any() else np.zeros(0, np.int64)
    return request_costs(requests.of_row, n, requests.spans(), index, lane, np.full(n, SHARED), size)
