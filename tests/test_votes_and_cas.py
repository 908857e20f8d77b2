"""Warp votes over part of a warp (a mask of 16 lanes inside a branch, a partial last warp) and
compare-and-swap loops, on both engines: the votes against the rule stated in plain Python, the swaps
against NumPy, and the two engines against each other, try by try."""

import numpy as np
import pytest

import gpuviz

VOTES = """
from numba import cuda

@cuda.jit
def k(x, out):
    t = cuda.grid(1)
    lane = cuda.laneid
    if lane < 16:
        p = x[t] > 0
        out[t, 0] = cuda.ballot_sync(0xFFFF, p)
        out[t, 1] = cuda.any_sync(0xFFFF, p)
        out[t, 2] = cuda.all_sync(0xFFFF, p)
"""

CAS = """
from numba import cuda

@cuda.jit
def k(values, best, tries):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        n = 0
        old = 0
        while old < v:
            n += 1
            seen = cuda.atomic.cas(best, (i % 2, 0), old, v)
            if seen == old:
                break
            old = seen
        tries[i] = n
"""

ENGINES = ["vector", "reference"]


def expected_votes(x: np.ndarray, block: int) -> np.ndarray:
    """Per thread of lanes 0-15: the ballot of lanes 0-15 of its warp, any and all; the other lanes stay 0."""
    out = np.zeros((len(x), 3), np.int64)
    for t in range(len(x)):
        lane = t % block % 32  # warps are counted within each block
        if lane >= 16:
            continue
        warp_start = t - lane
        lanes = range(warp_start, min(warp_start + 16, (t // block + 1) * block))
        votes = [x[w] > 0 for w in lanes]
        out[t] = [sum(1 << (w - warp_start) for w, v in zip(lanes, votes) if v), any(votes), all(votes)]
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("block", [32, 48, 80])  # the last warp of 48 and 80 holds just the 16 lanes of the mask
def test_votes_of_half_a_warp(engine, block):
    x = np.random.default_rng(block).integers(-3, 4, 2 * block)
    x[:16] = 1  # one mask where every lane votes yes
    out = np.zeros((2 * block, 3), np.int64)
    gpuviz.trace(VOTES, backend="sim", engine=engine)[2, block](x, out)
    assert (out == expected_votes(x, block)).all()


def test_a_compare_and_swap_loop_finds_the_maximum_with_the_same_tries_on_both_engines():
    values = np.random.default_rng(1).integers(1, 10**6, 300).astype(np.int64)
    tries = {}
    for engine in ENGINES:
        best, tries[engine] = np.zeros((2, 1), np.int64), np.zeros(300, np.int64)
        trace = gpuviz.trace(CAS, backend="sim", engine=engine)[3, 128](values, best, tries[engine])
        assert best[0, 0] == values[0::2].max() and best[1, 0] == values[1::2].max()
        assert (trace.accesses["kind"] == 2).sum() == tries[engine].sum()  # one atomic per try
        assert trace.meta["engine"] == engine
    assert (tries["vector"] == tries["reference"]).all() and tries["vector"].max() > 1  # some swaps failed
