"""The kernels of tests/test_numba_semantics.py as plain numba-cuda on a GPU (marker `gpu`): the values the
simulator gives are the GPU's."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_numba_semantics import CASES, semantics_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_gpu_gives_numbas_values(name):
    from numba import cuda

    body, a, dtype, expected = CASES[name]
    namespace: dict = {}
    exec(compile(semantics_source(body), "<plain>", "exec"), namespace)
    out = cuda.to_device(np.zeros(4, dtype))
    namespace["k"][1, 4](cuda.to_device(np.array(a)), out)
    assert out.copy_to_host().tolist() == expected


def test_a_complex_value_into_a_real_array_does_not_compile():
    from numba import cuda

    namespace: dict = {}
    exec(compile(semantics_source("out[i] = a[i] * a[i]"), "<plain>", "exec"), namespace)
    with pytest.raises(Exception, match="setitem"):
        namespace["k"][1, 2](cuda.to_device(np.array([1j, 2j])), cuda.to_device(np.zeros(2)))
