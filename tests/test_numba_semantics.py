"""Statements whose numbers numba-cuda fixes and NumPy or Python would not: each kernel gives numba's values on
both engines and under `auto` (tests/test_numba_semantics_gpu.py runs the same kernels with numba-cuda on a GPU).
The values are numba's: its typing (int ** negative int is an int: 0 except for 1 and -1), its conversions
(range() of a float truncates), CPython's folding of constants before numba reads the bytecode (2 ** -1 is 0.5),
a tuple of one number type indexed by each thread."""

from __future__ import annotations

import numpy as np
import pytest

import gpuviz

# name: (kernel body over i = cuda.grid(1), input a, output dtype, numba's output)
CASES = {
    "int_to_negative_power": ("out[i] = a[i] ** -1", [2, -1, 1, 3], np.int64, [0, -1, 1, 0]),
    "ten_to_minus_i": ("out[i] = 10 ** -i", [0, 0, 0, 0], np.int64, [1, 0, 0, 0]),
    "folded_constant_power": ("out[i] = 2 ** -1 + a[i]", [0, 1, 2, 3], np.float64, [0.5, 1.5, 2.5, 3.5]),
    "unary_plus_of_bool": ("out[i] = +(a[i] > 1)", [0, 1, 2, 3], np.int64, [0, 0, 1, 1]),
    "range_of_a_float": (
        "s = 0\n    for j in range(a[i] * 0.9):\n        s += 1\n    out[i] = s", [3, -1, 1, 2], np.int64, [2, 0, 0, 1]
    ),
    "tuple_by_thread": ("t = (10, 20, 30)\n    out[i] = t[i % 3]", [0, 0, 0, 0], np.int64, [10, 20, 30, 10]),
    "shape_by_thread": ("out[i] = out.shape[i % 1] + a.shape[0]", [0, 0, 0, 0], np.int64, [8, 8, 8, 8]),
}


def semantics_source(body: str) -> str:
    header = "import math\nimport numpy as np\nfrom numba import cuda\n"
    return header + f"@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    {body}\n"


@pytest.mark.parametrize("engine", ["vector", "reference", "auto"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_numbas_values_on_every_engine(name, engine):
    body, a, dtype, expected = CASES[name]
    out = np.zeros(4, dtype)
    trace = gpuviz.trace(semantics_source(body), name="k", backend="sim", engine=engine)[1, 4](np.array(a), out)
    assert out.tolist() == expected, f"{name} on {trace.meta['engine']}"
    if engine == "vector" and name != "range_of_a_float":
        assert trace.meta["engine"] == "vector", trace.meta.get("engine_note")


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_cmath_runs_on_the_reference_engine_by_declaration(engine):
    z = np.array([1j, 1 + 1j, 0.5 + 0j])
    out = np.zeros(3, complex)
    trace = gpuviz.trace(semantics_source("if i < 3:\n        out[i] = cmath.exp(a[i])").replace(
        "import math", "import cmath"), name="k", backend="sim", engine=engine)[1, 4](z, out)  # fmt: skip
    np.testing.assert_allclose(out, np.exp(z))
    assert trace.meta["engine"] == "reference"
    if engine == "vector":
        assert "cmath.exp" in trace.meta["engine_note"]


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_a_complex_value_into_a_real_array_is_refused_as_numba_cuda_refuses_it(engine):
    with pytest.raises(gpuviz.GpuvizError, match="numba-cuda cannot store a complex128 into an element of float64"):
        gpuviz.trace(semantics_source("out[i] = a[i] * a[i]"), name="k", backend="sim", engine=engine)[1, 2](
            np.array([1j, 2j]), np.zeros(2)
        )


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_zero_to_a_negative_power_stops_with_words(engine):
    with pytest.raises(gpuviz.GpuvizError, match="thread \\(1,0,0\\), line 7: 0 to a negative power"):
        gpuviz.trace(semantics_source("out[i] = a[i] ** -1"), name="k", backend="sim", engine=engine)[1, 2](
            np.array([2, 0]), np.zeros(2, np.int64)
        )
