"""The simulator's numba types against a GPU (marker `gpu`): the cases where numba's rules part from NumPy's,
as plain numba-cuda kernels on the device beside the simulator's engines, and what a GPU gives for an integer
divided by zero with `/` (the simulator stops there; its words say what a GPU gives)."""

from __future__ import annotations

import numpy as np
import pytest

import gpuviz
from tests.test_numba_types import CASES

pytestmark = pytest.mark.gpu


def _on_the_gpu(source: str, *arrays: np.ndarray) -> list[np.ndarray]:
    from numba import cuda

    namespace: dict = {}
    exec(compile(source, "<plain>", "exec"), namespace)
    device = [cuda.to_device(a) for a in arrays]
    namespace["k"][1, max(1, arrays[0].size)](*device)
    cuda.synchronize()
    return [d.copy_to_host() for d in device]


def _kernel(expression: str) -> str:
    return f"""
from numba import cuda
@cuda.jit
def k(av, bv, out):
    a, b = av[0], bv[0]
    out[0] = {expression}
"""


@pytest.mark.parametrize("expression, a, b", CASES, ids=[f"{c[0]} {type(c[1]).__name__}" for c in CASES])
def test_the_simulator_computes_what_the_gpu_does(expression, a, b):
    source = _kernel(expression)
    compared = 0
    for dtype in (np.float64, np.int64, np.uint64, np.bool_, np.complex128):
        try:
            *_, want = _on_the_gpu(source, np.array([a]), np.array([b]), np.zeros(1, dtype))
        except Exception:  # noqa: BLE001 - numba refuses to store this result in this type; try the next
            continue
        compared += 1
        for engine in ("vector", "reference"):
            out = np.zeros(1, dtype)
            gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 1](np.array([a]), np.array([b]), out)
            where = f"{engine}: {expression} of {a!r}, {b!r} into {dtype.__name__}"
            assert out[0] == want[0], f"{where}: {out[0]!r}, GPU {want[0]!r}"
    assert compared, f"{expression}: the GPU stored it into none of the element types"


def test_an_integer_divided_by_zero_with_a_slash_is_inf_or_nan_on_a_gpu():
    source = """
from numba import cuda
@cuda.jit
def k(a, b, out):
    i = cuda.grid(1)
    out[i] = a[i] / b[i]
"""
    a, b = np.array([0, 1, 3, -2]), np.array([0, 0, 2, 0])
    *_, out = _on_the_gpu(source, a, b, np.zeros(4))
    assert np.isnan(out[0]) and list(out[1:]) == [np.inf, 1.5, -np.inf]


def test_floats_stored_into_integers_as_on_the_gpu():
    from tests.test_numba_types import STORE_KERNEL

    x = np.array([-2.5, 3.3, np.nan, 3e9, -3e9, 300.7, np.inf, 1e19], np.float64)
    types = (np.uint16, np.int32, np.int8, np.uint64, np.int64)
    on_gpu = _on_the_gpu(STORE_KERNEL, x, *(np.zeros(x.size, t) for t in types))[1:]
    for engine in ("vector", "reference", "fast"):
        arrays = [np.zeros(x.size, t) for t in types]
        gpuviz.trace(STORE_KERNEL, name="k", backend="sim", engine=engine)[1, 8](x, *arrays)
        for mine, theirs in zip(arrays, on_gpu):
            np.testing.assert_array_equal(mine, theirs, err_msg=f"{engine} {mine.dtype}")


def test_math_functions_as_on_the_gpu():
    """IEEE's answers where Python's math raises, and math.floor's float type, against the GPU's own."""
    names = ["sqrt", "log", "exp", "acosh", "atanh", "lgamma", "gamma", "floor", "trunc", "erf", "log1p"]
    calls = "\n".join(f"        out[i, {k}] = math.{name}(x[i])" for k, name in enumerate(names))
    head = "import math\nfrom numba import cuda\n@cuda.jit\ndef k(x, out):\n    i = cuda.grid(1)\n    if i < x.size:\n"
    source = head + calls + "\n"
    for dtype in (np.float32, np.float64):
        x = np.array([-1.0, 0.0, 0.5, 2.0, -np.inf, np.inf, np.nan, 1000.0, -2.5], dtype)
        *_, theirs = _on_the_gpu(source, x, np.zeros((x.size, len(names)), dtype))
        for engine in ("vector", "reference"):
            mine = np.zeros((x.size, len(names)), dtype)
            gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 16](x, mine)
            close = np.isclose(mine, theirs, rtol=2e-6 if dtype == np.float32 else 1e-14, equal_nan=True)
            wrong = [(names[c], x[r], mine[r, c], theirs[r, c]) for r, c in zip(*np.nonzero(~close))]
            assert not wrong, f"{engine} {dtype.__name__}: {wrong}"


def test_casts_of_floats_as_on_the_gpu():
    from tests.test_numba_types import CAST_KERNEL

    x = np.array([-2.5, 3.3, np.nan, 3e9, -3e9, 300.7, np.inf], np.float64)
    on_gpu = _on_the_gpu(CAST_KERNEL, x, *(np.zeros(x.size, np.int64) for _ in range(3)))[1:]
    for engine in ("vector", "reference", "fast"):
        arrays = [np.zeros(x.size, np.int64) for _ in range(3)]
        gpuviz.trace(CAST_KERNEL, name="k", backend="sim", engine=engine)[1, 8](x, *arrays)
        for k, (mine, theirs) in enumerate(zip(arrays, on_gpu)):
            np.testing.assert_array_equal(mine, theirs, err_msg=f"{engine}, cast {k}")


@pytest.mark.parametrize("dtype, step", [(np.float32, 2.0**-12), (np.float64, 2.0**-30)])
def test_fma_and_cbrt_as_on_the_gpu(dtype, step):
    from tests.test_numba_types import FMA_KERNEL

    a = np.array([1 + step, 64.0, 1000.0, -27.0, 27.0, 1e-30], dtype)
    c = np.array([-(1 + 2 * step), 0.5, -1.0, 3.0, 0.0, 1.0], dtype)
    *_, out, roots = _on_the_gpu(FMA_KERNEL, a, a, c, np.zeros(a.size, dtype), np.zeros(a.size, dtype))
    for engine in ("vector", "reference"):
        mine, my_roots = np.zeros(a.size, dtype), np.zeros(a.size, dtype)
        gpuviz.trace(FMA_KERNEL, name="k", backend="sim", engine=engine)[1, 8](a, a, c, mine, my_roots)
        np.testing.assert_array_equal(mine, out, err_msg=f"{engine} fma")
        ints = np.int32 if dtype == np.float32 else np.int64
        ulps = np.abs(my_roots.view(ints).astype(np.int64) - roots.view(ints).astype(np.int64))
        assert ulps.max() <= 1, f"{engine} cbrt: {my_roots} against the GPU's {roots}"


def test_a_declared_device_signature_as_on_the_gpu():
    from tests.test_sim_constructs import DECLARED

    (theirs,) = _on_the_gpu(DECLARED, np.zeros(3))
    for engine in ("vector", "reference"):
        mine = np.zeros(3)
        gpuviz.trace(DECLARED, name="k", backend="sim", engine=engine)[1, 1](mine)
        np.testing.assert_array_equal(mine, theirs, err_msg=engine)
