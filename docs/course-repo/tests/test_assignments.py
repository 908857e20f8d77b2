"""The course's checks of each assignment: right answers, and (gpuviz_check) no races, no memory errors,
no divergence and coalesced loads and stores, on gpuviz's simulator."""

import numpy as np
from block_sum import THREADS, block_sum
from vector_add import add


def test_vector_add(gpuviz_check):
    a = np.arange(1000, dtype=np.float32)
    b = np.ones_like(a)
    out = np.zeros_like(a)
    # 32 float32 lanes read 128 bytes: 4 sectors of 32 bytes per request when the accesses are coalesced
    gpuviz_check.launch(add, 4, 256, a, b, out, sectors_per_request={"a": 4, "b": 4, "out": 4})
    np.testing.assert_array_equal(out, a + b)


def test_block_sum(gpuviz_check):
    values = np.ones(4 * THREADS, np.float32)
    sums = np.zeros(4, np.float32)
    gpuviz_check.launch(block_sum, 4, THREADS, values, sums)
    np.testing.assert_array_equal(sums, np.full(4, THREADS))
