"""What the simulator refuses in calls a kernel may make (tests/test_refusals.py REFUSED_CALLS), numba-cuda refuses
on a GPU (marker `gpu`): each statement fails to compile there, and the statements it compiles still run."""

from __future__ import annotations

import numpy as np
import pytest

from tests.plain_gpu import run_plain
from tests.test_refusals import HEADER, REFUSED_CALLS

pytestmark = pytest.mark.gpu


def _compiles_on_the_gpu(statement: str) -> bool:
    try:
        run_plain(HEADER + f"@cuda.jit\ndef k(a):\n    {statement}\n", 1, 1, np.zeros(4))
    except Exception:  # noqa: BLE001 - numba-cuda's typing, lowering and NRT errors: refused
        return False
    return True


@pytest.mark.parametrize("name", sorted(REFUSED_CALLS))
def test_numba_cuda_refuses_what_the_simulator_refuses(name):
    assert not _compiles_on_the_gpu(REFUSED_CALLS[name][0]), f"{name} compiled and ran with numba-cuda"


def test_the_allowed_forms_of_the_same_calls_compile():
    allowed = ("a[0] = math.sqrt(4.0)", "a[0] = (3 ** 2) % 5", "s = cuda.shared.array(4, np.float64)\n    a[0] = s[0]")
    for statement in allowed:
        assert _compiles_on_the_gpu(statement), statement
