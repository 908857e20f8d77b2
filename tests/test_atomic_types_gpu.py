"""cuda.atomic on a GPU (marker `gpu`): numba-cuda compiles and runs exactly the atomics the simulator runs, and
refuses the ones it refuses; a float index is truncated there too."""

from __future__ import annotations

import numpy as np
import pytest

from gpuviz.backends.sim.collective_types import atomic_refusal
from tests.plain_gpu import run_plain
from tests.test_atomic_types import DTYPES, OPS, atomic_source, atomic_statement

pytestmark = pytest.mark.gpu


def _runs_on_the_gpu(source: str, array: np.ndarray, threads: int = 1) -> np.ndarray | None:
    try:
        return run_plain(source, 1, threads, array, np.zeros(1, array.dtype))[0]
    except Exception:  # noqa: BLE001 - numba-cuda's typing and lowering errors: refused
        return None


def test_numba_cuda_compiles_the_atomics_the_simulator_runs():
    wrong = []
    for op in OPS:
        for dtype in DTYPES:
            array = np.zeros(4, dtype)
            ran = _runs_on_the_gpu(atomic_source(atomic_statement(op)), array) is not None
            index = 0 if op == "compare_and_swap" else 1
            simulated = atomic_refusal(op, array, index) is None
            if ran != simulated:
                wrong.append(f"cuda.atomic.{op} on {dtype}: GPU {'runs' if ran else 'refuses'} it")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "statement, shape, index",
    [
        ("cuda.atomic.add(a, 2.9, 5)", (4,), 2.9),
        ("cuda.atomic.add(a, (1,), 5)", (4,), (1,)),
        ("cuda.atomic.max(a, (1.5, 0.2), 7)", (2, 2), (1.5, 0.2)),
        ("cuda.atomic.add(a, 1, 5)", (2, 2), 1),
        ("cuda.atomic.compare_and_swap(a, 0, 1)", (2, 2), 0),
    ],
)
def test_an_atomics_index_is_taken_or_refused_as_on_a_gpu(statement, shape, index):
    array = np.zeros(shape, np.int64)
    got = _runs_on_the_gpu(atomic_source(statement), array, threads=3)
    op = statement.split("(")[0].split(".")[-1]
    assert (got is not None) == (atomic_refusal(op, array, index) is None), statement
    if got is not None and statement.startswith("cuda.atomic.add(a, 2.9"):
        assert got.tolist() == [0, 0, 15, 0]
    if got is not None and "max" in statement:
        assert got.tolist() == [[0, 0], [7, 0]]
