"""Shared-memory bank conflicts: 32 banks of 4-byte words; the conflict degree of a warp request
is the most distinct words any one bank must serve (lanes reading one word share it: a broadcast).

Accesses wider than 4 bytes are served in phases (64-bit: per half-warp, 128-bit: per quarter-warp),
so only lanes of the same phase can conflict; each lane then touches itemsize / 4 words.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpuviz.core.analysis.coalescing import itemsizes
from gpuviz.core.analysis.requests import Requests, distinct_per_group
from gpuviz.core.trace.model import Trace

BANKS, WORD = 32, 4
BANK_BITS = BANKS.bit_length() - 1  # a bank in 5 bits


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
    n = len(requests)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    if (itemsizes(trace)[requests.array] == WORD).all():
        one_word = _one_word_cost(requests, index)
        if one_word is not None:
            return one_word
    lane = lane() if callable(lane) else lane
    row, word, bank, phase = lane_words(trace, requests.array[requests.of_row], index, lane)
    request = requests.of_row[row].astype(np.int64)
    phases = int(phase.max()) + 1
    slot = (request * phases + phase) * BANKS + bank  # one bank in one phase of one request
    slots, words = distinct_per_group(slot, word)
    of_phase = slots // BANKS  # request * phases + phase, ascending as the slots are
    starts = np.flatnonzero(np.concatenate([[True], of_phase[1:] != of_phase[:-1]]))
    per_phase = np.maximum.reduceat(words, starts)
    request_of_phase = of_phase[starts] // phases
    degree = np.zeros(n, np.int64)
    np.maximum.at(degree, request_of_phase, per_phase)
    wavefronts = np.bincount(request_of_phase, weights=per_phase, minlength=n).astype(np.int64)
    ideal = np.bincount(request_of_phase, minlength=n).astype(np.int64)
    return degree, wavefronts, ideal


def _one_word_cost(requests: Requests, index: np.ndarray):
    """bank_cost where every element is one 4-byte word: a request is one phase of 32 lanes, its degree
    (and wavefronts) the most distinct words of one bank, from one sort of (request, bank, word) keys
    packed by shifts (BANKS is a power of two; the word field is rounded up to one). None where those
    keys need over 62 bits."""
    n, word = len(requests), index.astype(np.int64, copy=False)
    low = int(word.min())
    word_bits = (int(word.max()) - low).bit_length()
    if n.bit_length() + BANK_BITS + word_bits > 62:
        return None
    key = requests.of_row.astype(np.int64)  # a copy, shifted and filled in place
    key <<= BANK_BITS
    key |= word & (BANKS - 1)
    key <<= word_bits
    key |= word - low if low else word
    key.sort()
    distinct = key[np.concatenate([[True], key[1:] != key[:-1]])]  # one per (request, bank, word)
    slot = distinct >> word_bits  # request * BANKS + bank, ascending
    starts = np.flatnonzero(np.concatenate([[True], slot[1:] != slot[:-1]]))
    words = np.diff(np.append(starts, len(slot)))  # distinct words per (request, bank)
    request = slot[starts] >> BANK_BITS
    first = np.flatnonzero(np.concatenate([[True], request[1:] != request[:-1]]))
    degree = np.zeros(n, np.int64)
    degree[request[first]] = np.maximum.reduceat(words, first)
    return degree, degree.copy(), (degree > 0).astype(np.int64)
