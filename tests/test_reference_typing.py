"""Every engine computes with numba's types: the reference engine too (an `assert`, a fault or the sequential
schedule send a launch there), held against numba's own CPU compiler running the same statements with the
error model numba-cuda compiles kernels with."""

import textwrap

import numpy as np
import pytest
from numba import njit

import gpuviz
from gpuviz.backends.sim.arithmetic import one_value_hooks

STATEMENTS = """
out[i, 0] = a[i] * 0.1          # float32 * a Python float: float64
out[i, 1] = b[i] * b[i]         # int32 * int32: int64, no wrap at 32 bits
out[i, 2] = b[i] / 7            # int / int: float64
out[i, 3] = u[i] + b[i]         # uint32 + int32: int64
x = a[i]
x = x * 3                       # float32 * int: float64
out[i, 4] = x / 3.0
y = 0
y += a[i]                       # an int local, then a float32 added
out[i, 5] = y
out[i, 6] = -b[i] // 7          # floors, as Python does
out[i, 7] = b[i] % -7
acc = 0.0
for k in range(50):
    acc += a[i] * 0.01          # summed in float64
out[i, 8] = acc
"""
KERNEL = "from numba import cuda\n@cuda.jit\ndef k(a, b, u, out):\n    i = cuda.grid(1)\n    if i < a.size:\n"
KERNEL += textwrap.indent(STATEMENTS, " " * 8)


def _numba_cpu(a, b, u, out) -> None:
    namespace: dict = {}
    loop = "def loop(a, b, u, out):\n    for i in range(a.size):\n" + textwrap.indent(STATEMENTS, " " * 8)
    exec(loop, namespace)
    njit(error_model="numpy")(namespace["loop"])(a, b, u, out)


def _inputs():
    rng = np.random.default_rng(7)
    a = (rng.random(64) * 1000).astype(np.float32)
    b = rng.integers(-100_000, 100_000, 64).astype(np.int32)
    u = rng.integers(0, 2**32 - 1, 64, dtype=np.uint64).astype(np.uint32)
    return a, b, u, np.zeros((64, 9), np.float64)


@pytest.mark.parametrize("options", [{"engine": "vector"}, {"engine": "reference"},
                                     {"engine": "reference", "schedule": "sequential"}], ids=str)  # fmt: skip
def test_every_engine_computes_as_numba_types_it(options):
    expected = _inputs()
    _numba_cpu(*expected)
    args = _inputs()
    trace = gpuviz.trace(KERNEL, name="k", backend="sim", **options)[1, 64](*args)
    assert trace.meta["engine"] == options["engine"]
    wrong = [c for c in range(9) if not np.array_equal(args[3][:, c], expected[3][:, c])]
    assert wrong == [], f"columns {wrong} differ from numba's"


def test_an_assert_sends_a_float64_sum_to_the_reference_engine_and_it_stays_float64():
    src = """from numba import cuda
@cuda.jit
def mean(a, out):
    i = cuda.grid(1)
    assert i < out.size
    acc = 0.0
    for k in range(a.shape[1]):
        acc += a[i, k]
    out[i] = acc
"""
    a = np.full((2, 2000), 0.1, np.float32)
    out = np.zeros(2)
    trace = gpuviz.trace(src, name="mean", backend="sim")[1, 2](a, out)
    assert trace.meta["engine"] == "reference"
    assert out[0] == a[0].astype(np.float64).sum() != np.cumsum(a[0], dtype=np.float32)[-1]


def test_an_integer_division_by_zero_names_the_thread_and_what_a_gpu_does(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(a, b, out):\n    i = cuda.grid(1)\n    out[i] = a[i] // b[i]\n"
    b = np.array([1, 2, 0, 1], np.int32)
    with pytest.raises(gpuviz.KernelError, match=r"thread \(2,0,0\), line 5: division by zero .*GPU gives 0"):
        sim_run(src, 1, 4, np.arange(4, dtype=np.int32), b, np.zeros(4, np.int32))


def test_one_value_operators_keep_numbas_types():
    ops = one_value_hooks()
    add, mul, div, floordiv = ops["_gv_op_add"], ops["_gv_op_mul"], ops["_gv_op_truediv"], ops["_gv_op_floordiv"]
    assert mul(2**62, 4) == 0 and mul(np.int64(2**62), 4) == 0  # int64 wraps, as numba's does
    assert mul(np.int32(2**30), np.int32(4)) == 2**32  # no wrap at 32 bits
    assert type(mul(np.float32(1.5), np.float32(2))) is np.float32  # float32 * float32 stays float32
    assert mul(np.float32(0.1), 10.0) == float(np.float32(0.1)) * 10.0  # ... but with a Python float, float64
    assert type(add(np.uint64(1), np.uint64(2))) is np.uint64
    assert div(1.0, 0.0) == np.inf and np.isnan(ops["_gv_op_mod"](1.0, 0.0))  # floats: IEEE, no error
    with pytest.raises(ZeroDivisionError):
        floordiv(np.int32(1), 0)
    assert add((1, 2), (3,)) == (1, 2, 3)  # not numbers: Python's own operator
