"""Warp operations take each lane's own mask and the offset's low 5 bits, as numba-cuda's vote.sync, match.sync
and shfl.sync do: two half-warps voting with their own masks get two answers, and a shuffle by -1 is one by 31.
Both engines; the gpu-marked test holds them to a GPU's own outputs."""

from __future__ import annotations

import numpy as np
import pytest

import gpuviz

HALVES = """
from numba import cuda
@cuda.jit
def k(out):
    lane = cuda.laneid
    m = 0x0000FFFF if lane < 16 else 0xFFFF0000
    p = 1 if (lane < 8 or lane >= 16) else 0
    out[0, lane] = cuda.all_sync(m, p)
    out[1, lane] = cuda.any_sync(m, 1 if lane == 3 else 0)
    out[2, lane] = cuda.eq_sync(m, p)
    r = cuda.match_all_sync(m, lane // 16)
    out[3, lane] = r[0]
    out[4, lane] = r[1]
    out[5, lane] = cuda.shfl_down_sync(0xFFFFFFFF, lane * 10, -1)
    out[6, lane] = cuda.shfl_up_sync(0xFFFFFFFF, lane * 10, -1)
    out[7, lane] = cuda.shfl_xor_sync(0xFFFFFFFF, lane * 10, 33)
"""
DIVERGED = """
from numba import cuda
@cuda.jit
def k(out):
    lane = cuda.laneid
    if lane % 3 == 0:
        out[0, lane] = cuda.activemask()
    m = 0x0000FFFF if lane < 16 else 0xFFFF0000
    out[1, lane] = cuda.match_all_sync(m, lane // 16)[0]
    out[2, lane] = cuda.shfl_xor_sync(m, lane * 2, 8)
"""


def _expected_halves() -> np.ndarray:
    lane = np.arange(32)
    low = lane < 16
    mask = np.where(low, 0xFFFF, -65536)  # 0xFFFF0000 as an int32
    return np.array([
        np.where(low, 0, 1), np.where(low, 1, 0), np.where(low, 0, 1), mask, np.ones(32),
        np.where(lane == 0, 310, lane * 10), np.where(lane == 31, 0, lane * 10), (lane ^ 1) * 10,
    ])  # fmt: skip


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_votes_take_each_lanes_mask_and_shuffles_the_offsets_low_bits(engine):
    out = np.zeros((8, 32), np.int64)
    gpuviz.trace(HALVES, name="k", backend="sim", engine=engine)[1, 32](out)
    np.testing.assert_array_equal(out, _expected_halves())


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_a_collective_after_a_divergent_branch_meets_the_whole_mask(engine):
    """The lanes that ran `activemask()` in the branch meet the others at match_all_sync and the shuffle."""
    out = np.zeros((3, 32), np.int64)
    gpuviz.trace(DIVERGED, name="k", backend="sim", engine=engine)[1, 32](out)
    lane = np.arange(32)
    assert list(out[0, ::3]) == [sum(1 << k for k in range(0, 32, 3))] * 11
    np.testing.assert_array_equal(out[1], np.where(lane < 16, 0xFFFF, -65536))
    np.testing.assert_array_equal(out[2], (lane ^ 8) * 2)


@pytest.mark.gpu
@pytest.mark.parametrize("source", [HALVES, DIVERGED], ids=["halves", "diverged"])
def test_the_simulator_gives_the_gpus_warp_results(source):
    from numba import cuda

    namespace: dict = {}
    exec(compile(source, "<plain>", "exec"), namespace)
    rows = 8 if source is HALVES else 3
    device = cuda.to_device(np.zeros((rows, 32), np.int64))
    namespace["k"][1, 32](device)
    theirs = device.copy_to_host()
    for engine in ("vector", "reference"):
        out = np.zeros((rows, 32), np.int64)
        gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 32](out)
        np.testing.assert_array_equal(out, theirs, err_msg=engine)
