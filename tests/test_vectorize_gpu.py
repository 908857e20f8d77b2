"""`@vectorize(target='cuda')` on the GPU backend (marker `gpu`): the recorded call gives numba-cuda's own
ufunc's result, in the launch shape numba-cuda's own `forall` picks for it (the driver's block size)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from gpuviz.core.options import RunOptions
from gpuviz.program.script import run_script
from gpuviz.run.session import Session

pytestmark = pytest.mark.gpu
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
N = 4_099 if SIMULATED else 100_003  # numba's CUDA simulator runs threads one by one
SCRIPT = """\
import numpy as np
from numba import vectorize


@vectorize(["float32(float32, float32, float32)"], target="cuda")
def axpy(a, x, y):
    return a * x + y


x = np.linspace(0, 1, {n}, dtype=np.float32)
y = np.ones({n}, np.float32)
z = axpy({a}, x, y)
np.save("{out}", z)
"""


def _scalar(a, x, y):
    return a * x + y


@pytest.mark.parametrize("a", ["np.full({n}, 2.5, np.float32)", "np.float32(2.5)"], ids=["array", "scalar"])
def test_recorded_ufunc_matches_numbas_own_result_and_launch(tmp_path, a):
    """With a scalar, numba passes a one-element device array of stride 0 that every thread reads."""
    from numba import cuda

    out = tmp_path / "z.npy"
    path = tmp_path / "script.py"
    path.write_text(SCRIPT.format(n=N, out=out, a=a.format(n=N)))
    session = Session(RunOptions(backend="gpu", level="accesses"), keep_traces=True)
    run_script(path, session)
    (trace,) = session.traces
    x, y = np.linspace(0, 1, N, dtype=np.float32), np.ones(N, np.float32)
    block = int(trace.meta["block"][0])
    assert int(trace.meta["grid"][0]) == -(-N // block)
    assert trace.meta["param_names"] == ["a", "x", "y", "out"]
    if SIMULATED:  # numba's own vectorize does not run on numba's CUDA simulator, nor does its forall
        assert np.allclose(np.load(out), np.float32(2.5) * x + y)
    else:
        from numba.cuda.dispatcher import ForAll

        own = cuda.vectorize(["float32(float32, float32, float32)"])(_scalar)
        assert np.array_equal(np.load(out), own(np.float32(2.5), x, y))
        ((_, kernel),) = own.functions.values()
        args = [cuda.to_device(np.zeros(N, np.float32)) for _ in range(4)]
        assert block == ForAll(kernel, N, 0, 0, 0)._compute_thread_per_block(kernel.specialize(*args))
