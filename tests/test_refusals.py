"""What numba-cuda compiles is not refused: constant shapes in all their forms, math and NumPy calls,
numba.jit helpers (tests/real_kernels has one refusal each of what it refuses, with its line)."""

import numpy as np
import pytest

from gpuviz.core.errors import KernelSourceError

HEADER = "import math\nimport numpy as np\nfrom numba import cuda, float32, int32\nN = 8\nSHAPE = (4, 2)\n"

ALLOWED = {
    "literal": "s = cuda.shared.array(8, float32)",
    "global": "s = cuda.shared.array(N, float32)",
    "global_tuple": "s = cuda.shared.array(SHAPE, float32)",
    "tuple_of_globals": "s = cuda.shared.array((N, 1), float32)",
    "folded_arithmetic": "s = cuda.shared.array(4 * 2, float32)",
    "literal_local": "n = 8\n    s = cuda.local.array(n, float32)",
    "keywords": "s = cuda.shared.array(shape=N, dtype=float32)",
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_constant_shapes_are_accepted(name, sim_run):
    at = "0, 0" if "tuple" in name else "0"
    body = f"    {ALLOWED[name]}\n    s[{at}] = math.sqrt(4.0) + np.float32(1)\n    a[0] = s[{at}]\n"
    src = HEADER + "@cuda.jit\ndef k(a):\n" + body
    a = np.zeros(1)
    sim_run(src, 1, 1, a)
    assert a[0] == 3.0


@pytest.mark.parametrize("shape", ["a.size", "N + 1", "(N, N + 1)", "n"])
def test_shapes_numba_cannot_fold_are_refused_at_their_line(shape, sim_run):
    src = HEADER + f"@cuda.jit\ndef k(a, n):\n    x = 1\n    s = cuda.shared.array({shape}, float32)\n    a[0] = s[0]\n"
    with pytest.raises(KernelSourceError, match="line 9: cuda.shared.array: the shape .* is not a compile-time"):
        sim_run(src, 1, 1, np.zeros(1), 3)


@pytest.mark.parametrize("shape", ["N + 1", "(N, N + 1)"])
def test_the_gpu_rewrite_refuses_those_shapes_in_the_same_words(shape, sim_run):
    """The GPU backend's rewrite checks shapes as the simulator's does (no GPU needed: it refuses before
    numba compiles), so both backends give one line naming the line, not numba's typing error."""
    from gpuviz.instrument.gpu_rewrite import GpuRewriter, SharedSites
    from gpuviz.instrument.rewrite import build_program
    from gpuviz.run.api import python_function

    src = HEADER + f"@cuda.jit\ndef k(a, n):\n    x = 1\n    s = cuda.shared.array({shape}, float32)\n    a[0] = s[0]\n"
    with pytest.raises(KernelSourceError) as gpu:
        build_program(python_function(src), GpuRewriter, accesses=True, sites=SharedSites(), ndims={"a": 1})
    with pytest.raises(KernelSourceError) as sim:
        sim_run(src, 1, 1, np.zeros(1), 3)
    assert str(gpu.value) == str(sim.value) and gpu.value.line == 9


def test_plain_python_helpers_are_refused_as_numba_refuses_them(sim_run):
    src = HEADER + "def helper(x):\n    return x\n@cuda.jit\ndef k(a):\n    a[0] = helper(1)\n"
    with pytest.raises(KernelSourceError, match="line 10: Untyped global name 'helper'"):
        sim_run(src, 1, 1, np.zeros(1))


@pytest.mark.parametrize(
    "value, why",
    [
        ("text", "a str"), ([1, 2], "a list"), ({"a": 1}, "a dict"), (object(), "a object"),
        (np.array([1, "a"], dtype=object), "an array of Python objects (dtype object)"),
        (np.array(["ab"]), "an array of strings (<U2)"), ((1, "x"), "a str"),
        (1, None), (2.5, None), (True, None), (1j, None), (np.float32(1), None), (None, None),
        ((1, 2.0), None), (np.zeros(3), None), (np.zeros(2, [("s0", np.uint64)]), None),
    ],
)  # fmt: skip
def test_argument_types_numba_cuda_can_pass(value, why):
    from gpuviz.instrument.arguments import refused_argument

    assert refused_argument(value) == why


# calls into modules a kernel may use, which numba-cuda still refuses (tests/test_refusals_gpu.py compiles each)
REFUSED_CALLS = {
    "math_gcd": ("a[0] = math.gcd(6, 4)", "math.gcd() is not one of math's functions numba-cuda compiles"),
    "np_zeros": ("t = np.zeros(3)\n    a[0] = t[0]", "np.zeros() makes a new array"),
    "array_copy": ("t = a.copy()\n    a[0] = t[1]", "a.copy() makes a new array"),
    "pow_modulus": ("a[0] = pow(3, 2, 5)", "pow() with a modulus is not supported"),
    "hash": ("a[0] = hash(3)", "hash() is not supported in CUDA kernels"),
    "python_float_dtype": ("s = cuda.shared.array(4, float)\n    a[0] = s[0]", "cuda.shared.array takes a NumPy"),
}


@pytest.mark.parametrize("name", sorted(REFUSED_CALLS))
def test_calls_numba_cuda_refuses_are_refused_at_their_line(name, sim_run):
    statement, words = REFUSED_CALLS[name]
    with pytest.raises(KernelSourceError, match=f"line 8: {words}".replace("(", r"\(").replace(")", r"\)")):
        sim_run(HEADER + f"@cuda.jit\ndef k(a):\n    {statement}\n", 1, 1, np.zeros(4))


def test_math_functions_numba_cuda_compiles_are_the_type_tables():
    from gpuviz.backends.sim.numba_types import TABLES
    from gpuviz.instrument.numba_cuda_names import NUMBA_CUDA_MATH

    assert {name.removeprefix("math.") for name in TABLES if name.startswith("math.")} == NUMBA_CUDA_MATH
