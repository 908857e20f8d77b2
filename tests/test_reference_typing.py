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
out[i, 9] = h[i] > 0.1          # float32 with a Python float compares in float64: 0.1f is above 0.1
out[i, 10] = h[i] == 0.1
out[i, 11] = a[i] ** 2          # float32 to a whole power: float32, by squaring
out[i, 12] = (h[i] * 33.0) ** 3 # float64 by squaring: not NumPy's pow
z = (a[i] - a[i]) / (a[i] - a[i])
out[i, 13] = max(0.0, z)        # Python's max: a nan that comes later does not replace 0.0
out[i, 14] = min(h[i], 0.1)     # in float64: 0.1
out[i, 15] = max(-0.0, 0.0)     # the first of two equal values: -0.0
narrow[i] = b[i] % 300          # a store wraps to int8, as C's conversion does
bits[i, 0] = big[i] >> 3        # a shift keeps the left operand's signedness: uint64 (NumPy refuses)
bits[i, 1] = big[i] ^ b[i]      # a bitwise operator is signed if either side is: int64 (NumPy: float64)
bits[i, 2] = -(b[i] > 0)        # minus a bool is an int64 (NumPy refuses)
"""
ARGS = "a, b, u, h, big, out, narrow, bits"
KERNEL = f"from numba import cuda\n@cuda.jit\ndef k({ARGS}):\n    i = cuda.grid(1)\n    if i < a.size:\n"
KERNEL += textwrap.indent(STATEMENTS, " " * 8)


def _numba_cpu(*args) -> None:
    namespace: dict = {}
    loop = f"def loop({ARGS}):\n    for i in range(a.size):\n" + textwrap.indent(STATEMENTS, " " * 8)
    exec(loop, namespace)
    njit(error_model="numpy")(namespace["loop"])(*args)


def _inputs():
    rng = np.random.default_rng(7)
    a = (rng.random(64) * 1000).astype(np.float32)
    b = rng.integers(-100_000, 100_000, 64).astype(np.int32)
    u = rng.integers(0, 2**32 - 1, 64, dtype=np.uint64).astype(np.uint32)
    h = np.full(64, 0.1, np.float32)
    big = rng.integers(2**62, 2**64 - 1, 64, dtype=np.uint64)
    return a, b, u, h, big, np.zeros((64, 16), np.float64), np.zeros(64, np.int8), np.zeros((64, 3), np.int64)


@pytest.mark.parametrize("options", [{"engine": "vector"}, {"engine": "reference"},
                                     {"engine": "reference", "schedule": "sequential"}], ids=str)  # fmt: skip
def test_every_engine_computes_as_numba_types_it(options):
    expected = _inputs()
    _numba_cpu(*expected)
    args = _inputs()
    trace = gpuviz.trace(KERNEL, name="k", backend="sim", **options)[1, 64](*args)
    assert trace.meta["engine"] == options["engine"]
    wrong = [c for c in range(16) if not np.array_equal(args[5][:, c], expected[5][:, c], equal_nan=True)]
    assert wrong == [], f"columns {wrong} differ from numba's"
    assert np.array_equal(args[6], expected[6]) and np.signbit(args[5][:, 15]).all()
    np.testing.assert_array_equal(args[7], expected[7])


def test_a_float64_sum_of_float32_values_stays_float64_on_the_sequential_schedule():
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
    trace = gpuviz.trace(src, name="mean", backend="sim", schedule="sequential")[1, 2](a, out)
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
