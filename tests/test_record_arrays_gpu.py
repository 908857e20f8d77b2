"""Arrays of records on a GPU (marker `gpu`): the kernels of tests/test_record_arrays.py run as plain numba-cuda give
what the simulator gives, and through the GPU recorder at both levels too."""

from __future__ import annotations

import numpy as np
import pytest

import gpuviz
from tests.plain_gpu import run_plain
from tests.test_record_arrays import KERNELS, PARTICLE, expected, particles, record_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_plain_numba_cuda_gives_what_the_simulator_gives(name):
    (got,) = run_plain(record_source(KERNELS[name]), 2, 32, particles())
    for field in PARTICLE.names:
        np.testing.assert_array_equal(got[field], expected(name)[field], err_msg=f"{name}, field {field}")


@pytest.mark.parametrize("level", ["threads", "accesses"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_gpu_recorder_keeps_a_records_results(name, level):
    p = particles()
    gpuviz.trace(record_source(KERNELS[name]), name="k", backend="gpu", level=level)[2, 32](p)
    for field in PARTICLE.names:
        np.testing.assert_array_equal(p[field], expected(name)[field], err_msg=f"{name} at {level}, field {field}")
