"""The kernels of tests/test_numba_semantics.py as plain numba-cuda on a GPU (marker `gpu`): the values the
simulator gives are the GPU's."""

from __future__ import annotations

import numpy as np
import pytest

from tests.plain_gpu import run_plain
from tests.test_numba_semantics import CASES, semantics_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_gpu_gives_numbas_values(name):
    body, a, dtype, expected = CASES[name]
    _, out = run_plain(semantics_source(body), 1, 4, np.array(a), np.zeros(4, dtype))
    assert out.tolist() == expected


def test_a_complex_value_into_a_real_array_does_not_compile():
    with pytest.raises(Exception, match="setitem"):
        run_plain(semantics_source("out[i] = a[i] * a[i]"), 1, 2, np.array([1j, 2j]), np.zeros(2))
