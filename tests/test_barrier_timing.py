"""A block barrier holds every warp of its block until the last one arrives: a warp that skipped a branch
another warp spent long in leaves the barrier with it, so what it reads after the barrier it reads after
that warp's writes, in time as in value (the vector engine and the fast path alike)."""

import numpy as np
import pytest

import gpuviz

SOURCE = """
from numba import cuda, float32

@cuda.jit
def k(out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = t
    cuda.syncthreads()
    if t == 0:
        acc = float32(0)
        for i in range(64):
            acc += s[i]
        s[0] = acc
    cuda.syncthreads()
    out[t] = s[0]
"""


@pytest.mark.parametrize("engine", ["vector", "fast"])
def test_a_warp_that_skipped_the_work_leaves_the_barrier_with_the_one_that_did_it(engine):
    out = np.zeros(64, np.float32)
    trace = gpuviz.trace(SOURCE, backend="sim", engine=engine)[1, 64](out)
    assert (out == 2016).all()
    acc = trace.accesses
    write = (acc["thread"] == 0) & (acc["line"] == 14) & (acc["kind"] == 1)  # s[0] = acc
    read = (acc["thread"] == 32) & (acc["line"] == 16) & (acc["kind"] == 0)  # warp 1 reads s[0]
    assert write.sum() == 1 and read.sum() == 1
    assert acc["time"][read][0] > acc["time"][write][0]
    ends = trace.threads["t_end"]
    assert ends[32] == ends[0]  # both warps leave the last barrier together and do the same after it
