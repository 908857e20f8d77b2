"""The simulator computes in numba-cuda's types: the table it reads (backends/sim/numba_types.py) against
numba-cuda's own typing, every operator hook against that table, and the values of the cases where numba's rules
part from NumPy's against numba's own compiler (numba-cuda shares its typing and its integer code)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from gpuviz.backends.sim import arithmetic
from gpuviz.backends.sim.numba_types import CODES, TABLES

TOOL = Path(__file__).resolve().parent.parent / "tools" / "numba_type_table.py"


def _tool():
    spec = importlib.util.spec_from_file_location("numba_type_table", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("numba_type_table", module)
    spec.loader.exec_module(module)
    return module


def test_the_table_is_numba_cudas_typing():
    pytest.importorskip("numba.cuda")
    found = {name: tuple(" ".join(row) for row in rows) for name, rows in _tool().tables().items()}
    assert set(found) == set(TABLES)
    for name in TABLES:
        assert found[name] == TABLES[name], f"{name} differs from numba-cuda's typing: run python {TOOL.name}"


def test_the_names_of_numba_cuda_are_the_installed_ones():
    pytest.importorskip("numba.cuda")
    from gpuviz.instrument.numba_cuda_names import NUMBA_CUDA_NAMES

    assert set(_tool().cuda_names()) == NUMBA_CUDA_NAMES, f"numba.cuda's names changed: run python {TOOL.name}"


def _dtype(code: str) -> np.dtype:
    return np.dtype(bool) if code == "b" else np.dtype(code)


def _sample(dtype: np.dtype, lanes: bool):
    value = np.ones(3, dtype) if dtype.kind != "b" else np.ones(3, bool)
    value[0] = 3 if dtype.kind != "b" else True
    return value if lanes else value[0]


BINARY = [name for name in TABLES if "." not in name and name not in ("compare", "max", "neg", "pos", "invert", "abs")]


@pytest.mark.parametrize("lanes", [True, False], ids=["lanes", "one value"])
@pytest.mark.parametrize("name", BINARY)
def test_every_operator_computes_in_numbas_type(name, lanes):
    """Each pair of number types, on the vector engine's lanes and the reference engine's one value: the result's
    type is numba-cuda's, or the pair is refused as numba-cuda refuses it."""
    if lanes:
        hook = arithmetic.true_division() if name == "truediv" else arithmetic.binary(name)
    else:
        hook = arithmetic.one_value_hooks()[f"_gv_op_{name}"]
    wrong = []
    for (i, left), (j, right) in itertools.product(enumerate(CODES), repeat=2):
        want = TABLES[name][i].split()[j]
        a, b = _sample(_dtype(left), lanes), _sample(_dtype(right), lanes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                got = np.asarray(hook(a, b)).dtype
            except arithmetic.KernelMisuse:
                got = "-"
        if got != "-" and type(hook(a, b)) is float:  # a float64 computed as a Python float
            got = np.dtype(np.float64)
        if (want == "-") != (got == "-") or (want != "-" and got != _dtype(want)):
            wrong.append(f"{left} {name} {right}: numba-cuda {want}, gpuviz {got}")
    assert not wrong, "\n".join(wrong)


def _numba(expression: str, *args):
    from numba import njit

    namespace: dict = {}
    exec(f"def f(a, b):\n    return {expression}\n", {"np": np}, namespace)
    return njit(error_model="numpy")(namespace["f"])(*args)


BIG = np.uint64(2**63 + 5)
CASES = [  # expression, a, b: where numba's rules and NumPy's part
    ("a - b", np.uint8(3), np.uint8(7)),  # both unsigned: a uint64, which wraps
    ("a - b < 0", np.uint8(3), np.uint8(7)),  # never true for two unsigned values
    ("a - b", np.uint8(3), np.uint32(7)),
    ("a + b", BIG, np.int64(2)),  # uint64 with int64: an int64 (NumPy: float64)
    ("a + 1", BIG, 0),
    ("a // 2", BIG, 0),  # floor of the wrapped int64
    ("a % 3", BIG, 0),
    ("a * 2654435761 >> 16", np.uint32(7), 0),
    ("a < b", BIG, np.int64(-1)),  # compared as float64
    ("max(a, b)", BIG, np.int64(-1)),
    ("max(a, b)", np.uint8(200), np.int8(-3)),
    ("-a", np.uint8(200), 0),  # negated in its own width, then widened
    ("-a", np.int8(-128), 0),
    ("~a", np.uint8(3), 0),
    ("~a", np.bool_(True), 0),
    ("a + b", np.float32(0.1), np.int16(3)),  # float32 stays float32 with a narrow integer
    ("a + b", np.float32(0.1), np.uint16(3)),  # and becomes float64 with uint16
    ("a / b", np.float32(1), np.int8(3)),
    ("a & b", np.uint64(6), np.int8(-1)),
    ("a >> b", np.uint8(200), np.int64(3)),
    ("a ** b", np.float32(1.1), np.uint16(3)),
    ("a * b", np.complex64(1 + 2j), np.int16(3)),
    ("a * b", np.complex64(1 + 2j), np.int32(3)),
    ("a ** 3", np.float64(3.3), 0),  # by squaring: 35.937, where NumPy's pow gives 35.93699999999999
    ("a ** b", np.float32(1.7), np.int32(7)),
    ("a // b", np.int64(-(2**63)), np.int64(-1)),  # the quotient overflows: numba's code gives 0
    ("a % b", np.int64(-(2**63)), np.int64(-1)),
]


@pytest.mark.parametrize("expression, a, b", CASES, ids=[f"{c[0]} {type(c[1]).__name__}" for c in CASES])
def test_values_where_numba_and_numpy_part(expression, a, b):
    pytest.importorskip("numba")
    want = _numba(expression, a, b)
    source = f"""
from numba import cuda
@cuda.jit
def k(av, bv, out):
    a, b = av[0], bv[0]
    out[0] = {expression}
"""
    dtype = np.asarray(want).dtype if not isinstance(want, (bool, int, float, complex)) else None
    dtype = dtype or {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}[type(want)]
    if isinstance(want, int) and not isinstance(want, bool) and want >= 2**63:
        dtype = np.uint64
    complex_values = np.iscomplexobj(a) or np.iscomplexobj(b)  # the fast path declines complex arrays
    for engine in ("vector", "reference") if complex_values else ("vector", "reference", "fast"):
        out = np.zeros(1, dtype)
        trace = gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 1](np.array([a]), np.array([b]), out)
        assert trace.meta["engine"] == engine, trace.meta.get("engine_note")
        assert out[0] == want, f"{engine}: {expression} of {a!r}, {b!r} gave {out[0]!r}, numba {want!r}"


def test_an_integer_divided_by_zero_with_a_slash_says_what_a_gpu_gives():
    source = """
from numba import cuda
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    out[i] = a[i] / (i - 1)
"""
    with pytest.raises(gpuviz.GpuvizError, match=r"with /: numba-cuda on a GPU gives inf there, or nan for 0 / 0"):
        gpuviz.trace(source, name="k", backend="sim")[1, 4](np.arange(4), np.zeros(4))


SPECIAL = [-1.0, 0.0, 0.5, 2.0, -np.inf, np.inf, np.nan, 1000.0]
# math's functions against IEEE's answers (NumPy's ufuncs, or Python's math where it does not raise)
IEEE = {
    "sqrt": np.sqrt, "log": np.log, "log10": np.log10, "log1p": np.log1p, "exp": np.exp, "acosh": np.arccosh,
    "atanh": np.arctanh, "asin": np.arcsin, "sin": np.sin, "cosh": np.cosh, "floor": np.floor, "trunc": np.trunc,
}  # fmt: skip


@pytest.mark.parametrize("engine", ["vector", "reference", "auto"])
def test_math_functions_give_ieee_answers_where_python_raises(engine):
    """A GPU never raises in math: sqrt(-1) is nan, log(0) -inf, exp(1000) inf, acosh(0.5) nan, lgamma(0) inf.
    Python's math raises there; before, the reference engine stopped the launch with 'math domain error'."""
    names = [*IEEE, "lgamma", "gamma", "remainder", "erf"]
    calls = "\n".join(
        f"        out[i, {k}] = math.{name}(x[i], 3.0)"
        if name == "remainder"
        else f"        out[i, {k}] = math.{name}(x[i])"
        for k, name in enumerate(names)
    )
    head = "import math\nfrom numba import cuda\n@cuda.jit\ndef k(x, out):\n    i = cuda.grid(1)\n    if i < x.size:\n"
    source = head + calls + "\n"
    x = np.array(SPECIAL)
    out = np.zeros((x.size, len(names)))
    gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 32](x, out)
    with np.errstate(all="ignore"):
        for k, name in enumerate(IEEE):
            np.testing.assert_array_equal(out[:, k], IEEE[name](x), err_msg=name)
    lgamma, gamma, remainder, erf = out[:, len(IEEE) :].T
    np.testing.assert_array_equal(
        lgamma, [np.inf, np.inf, math.lgamma(0.5), 0.0, np.inf, np.inf, np.nan, math.lgamma(1000.0)]
    )
    np.testing.assert_array_equal(gamma, [np.nan, np.inf, math.gamma(0.5), 1.0, np.nan, np.inf, np.nan, np.inf])
    np.testing.assert_array_equal(remainder, [-1.0, 0.0, 0.5, -1.0, np.nan, np.nan, np.nan, 1.0])
    np.testing.assert_array_equal(erf, [math.erf(v) for v in SPECIAL])


def test_math_floor_is_a_float_as_numba_cuda_types_it():
    """numba-cuda gives math.floor(x) x's float type (numba's CPU target gives an int64): floor(nan) is nan, and a
    floor used as an index is refused, as numba-cuda refuses to compile it."""
    source = """
import math
from numba import cuda
@cuda.jit
def k(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.floor(x[i])
"""
    x = np.array([2.7, np.nan, np.inf, 1e19, -0.5], np.float32)
    for engine in ("vector", "reference", "fast"):
        out = np.zeros(5, np.float32)
        trace = gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 8](x, out)
        assert trace.meta["engine"] == engine
        np.testing.assert_array_equal(out, np.floor(x), err_msg=engine)
    indexed = source.replace("out[i] = math.floor(x[i])", "out[math.floor(x[i])] += 1")
    with pytest.raises(gpuviz.GpuvizError, match="is a float; array indices must be integers"):
        gpuviz.trace(indexed, name="k", backend="sim")[1, 1](np.array([1.5]), np.zeros(4))


@pytest.mark.parametrize("lanes", [True, False], ids=["lanes", "one value"])
def test_every_math_function_computes_in_numba_cudas_type(lanes):
    from gpuviz.backends.sim.math_functions import math_function

    wrong = []
    for table in (name for name in TABLES if name.startswith("math.")):
        function, rows = math_function(table.removeprefix("math.")), TABLES[table]
        pairs = [(i, j) for i in range(len(CODES)) for j in range(len(CODES))] if " " in rows[0] else range(len(CODES))
        for where in pairs:
            codes = [CODES[k] for k in (where if isinstance(where, tuple) else (where,))]
            want = rows[where[0]].split()[where[1]] if isinstance(where, tuple) else rows[where]
            try:
                result = function(*(_sample(_dtype(code), lanes) for code in codes))
                got = np.asarray(result[0] if isinstance(result, tuple) else result).dtype
            except arithmetic.KernelMisuse:
                got = "-"
            if (want == "-") != (got == "-") or (want != "-" and got != _dtype(want)):
                wrong.append(f"{table}{tuple(codes)}: numba-cuda {want}, gpuviz {got}")
    assert not wrong, "\n".join(wrong)


def test_each_math_function_numba_cuda_compiles_has_the_simulators_version():
    from gpuviz.backends.sim.math_functions import UFUNCS
    from gpuviz.instrument.vector_rewrite import MATH_FUNCTIONS

    in_table = {name.removeprefix("math.") for name in TABLES if name.startswith("math.")}
    assert set(MATH_FUNCTIONS) == set(UFUNCS) == in_table


MEASURED = json.loads((Path(__file__).parent / "data" / "gpu_float_to_int_h200.json").read_text())
STORES = sorted(MEASURED["results"])


@pytest.mark.parametrize("case", STORES)
def test_float_to_integer_is_what_the_gpu_gave(case):
    """The conversion rule against a lent H200's own stores and int() (the fixture: card, driver, date)."""
    kind, types_ = case.split(" ", 1)
    source, target = types_.split("->")
    x = np.array([float(v) for v in MEASURED["values"]], source)
    got = arithmetic.float_to_integer(x, np.dtype(target)) if kind == "store" else arithmetic.to_int(x)
    assert [int(v) for v in np.asarray(got).astype(target)] == MEASURED["results"][case]


STORE_KERNEL = """
from numba import cuda
@cuda.jit
def k(x, a, b, c, d, e):
    i = cuda.grid(1)
    if i < x.size:
        a[i] = x[i] * 10
        b[i] = x[i]
        c[i] = x[i]
        d[i] = x[i]
        e[i] = int(x[i])
"""


@pytest.mark.parametrize("engine", ["vector", "reference", "fast"])
def test_a_float_stored_into_an_integer_array_converts_as_on_a_gpu(engine):
    """x86's conversion (NumPy's, and numba's CPU target's) gives the lowest value for NaN and every float out of
    range; a GPU saturates: -2.5 into a uint16 is 0, 3e9 into an int32 is 2**31 - 1."""
    x = np.array([-2.5, 3.3, np.nan, 3e9, -3e9, 300.7, np.inf, 1e19], np.float64)
    arrays = [np.zeros(x.size, t) for t in (np.uint16, np.int32, np.int8, np.uint64, np.int64)]
    trace = gpuviz.trace(STORE_KERNEL, name="k", backend="sim", engine=engine)[1, 8](x, *arrays)
    assert trace.meta["engine"] == engine
    for array, value in zip(arrays, (x * 10, x, x, x)):
        np.testing.assert_array_equal(array, arithmetic.float_to_integer(value, array.dtype))
    np.testing.assert_array_equal(arrays[4], arithmetic.to_int(x))
    assert list(arrays[0][:4]) == [0, 33, 32768, 65535] and arrays[1][3] == 2**31 - 1


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_an_atomic_converts_its_value_to_the_arrays_type(engine):
    """atomic.max of a uint32 array with an int32 -2 compares 4294967294, as numba-cuda's atom.max.u32 does."""
    source = """
from numba import cuda
@cuda.jit
def k(values, best):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.max(best, 0, values[i])
"""
    best = np.zeros(1, np.uint32)
    gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 4](np.array([3, -2, 10], np.int32), best)
    assert best[0] == 4294967294


CAST_KERNEL = """
import numpy as np
from numba import cuda, int32, int8
@cuda.jit
def k(x, a, b, c):
    i = cuda.grid(1)
    if i < x.size:
        a[i] = int32(x[i]) + 0
        b[i] = np.uint16(x[i]) + 0
        c[i] = int8(x[i]) + 0
"""


@pytest.mark.parametrize("engine", ["vector", "reference", "fast"])
def test_a_cast_of_a_float_converts_as_a_gpu_stores(engine):
    x = np.array([-2.5, 3.3, np.nan, 3e9, -3e9, 300.7, np.inf], np.float64)
    arrays = [np.zeros(x.size, np.int64) for _ in range(3)]
    trace = gpuviz.trace(CAST_KERNEL, name="k", backend="sim", engine=engine)[1, 8](x, *arrays)
    assert trace.meta["engine"] == engine
    for array, target in zip(arrays, (np.int32, np.uint16, np.int8)):
        np.testing.assert_array_equal(array, arithmetic.float_to_integer(x, np.dtype(target)), err_msg=str(target))


FMA_KERNEL = """
from numba import cuda
@cuda.jit
def k(a, b, c, out, roots):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cuda.fma(a[i], b[i], c[i])
        roots[i] = cuda.cbrt(a[i])
"""


@pytest.mark.parametrize("dtype, step", [(np.float32, 2.0**-12), (np.float64, 2.0**-30)])
@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_fma_rounds_once(engine, dtype, step):
    """fma(1 + e, 1 + e, -(1 + 2e)) is e**2 rounded once; a * b + c rounds twice and gives 0."""
    a = np.array([1 + step, 64.0, 1000.0, -27.0], dtype)
    c = np.array([-(1 + 2 * step), 0.5, -1.0, 3.0], dtype)
    out, roots = np.zeros(4, dtype), np.zeros(4, dtype)
    gpuviz.trace(FMA_KERNEL, name="k", backend="sim", engine=engine)[1, 4](a, a, c, out, roots)
    assert out[0] == dtype(step * step) and out[1] == dtype(64.0 * 64.0 + 0.5)
    np.testing.assert_array_equal(roots, np.cbrt(a))


def test_a_python_int_past_int64_is_a_uint64_even_after_small_ints_were_seen():
    """The one-value hooks cache the type of (int, int); a Python int from 2**63 is numba's uint64 all the same."""
    floordiv = arithmetic.one_value_hooks()["_gv_op_floordiv"]
    assert floordiv(3, 2) == 1
    assert floordiv(18446744073709551615, 9223372036854775808) == 1  # numba: uint64 // uint64


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_an_atomic_with_a_float_value_into_an_integer_array_converts_as_a_store_does(engine):
    source = """
from numba import cuda
@cuda.jit
def k(x, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.max(out, i, x[i])
"""
    x = np.array([3e9, np.nan, -2.7, 5.5])
    out = np.zeros(4, np.int32)
    gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 4](x, out)
    np.testing.assert_array_equal(out, np.maximum(0, arithmetic.float_to_integer(x, np.dtype(np.int32))))


def test_fma_of_float16_is_a_float32_and_keeps_the_sign_of_zero():
    fma = arithmetic.fused_multiply_add
    assert fma(np.float16(1), np.float16(2), np.float16(3)) == 5 and type(fma(np.float16(1), 2.0, 3.0)) is np.float64
    assert type(fma(np.float16(1), np.float16(2), np.float16(3))) is np.float32
    assert (
        math.copysign(1, fma(-0.0, 1.0, -0.0)) == -1
        and math.copysign(1, fma(np.float32(-0.0), np.float32(1), np.float32(-0.0))) == -1
    )


def test_what_numba_cuda_refuses_or_converts_in_warp_masks_casts_and_comparisons():
    source = """
import numpy as np
from numba import cuda, uint8
@cuda.jit
def k(out, z):
    lane = cuda.laneid
    out[0, lane] = cuda.match_any_sync(1.0 * 0xFFFFFFFF, lane // 8)  # numba converts the mask to an int32
    out[1, lane] = uint8(300)                                          # wrapped: 44
"""
    out = np.zeros((2, 32), np.int64)
    for engine in ("vector", "reference"):
        gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 32](out, np.zeros(2, np.complex128))
        assert list(out[1]) == [44] * 32 and out[0, 0] == 0xFF
    ordering = source.replace("out[1, lane] = uint8(300)", "out[1, lane] = z[0] < z[1]")
    with pytest.raises(gpuviz.GpuvizError, match="numba-cuda has no ordering of complex values"):
        gpuviz.trace(ordering, name="k", backend="sim")[1, 32](out, np.zeros(2, np.complex128))


@pytest.mark.parametrize(
    "statement, words",
    [
        ("out[0] = cuda.selp(out[0] > 0, 1, 2.5)", "selp takes two values of one type"),
        ("out[0] = cuda.selp(True, np.int8(1), np.int8(2))", "selp takes two values of one type"),
        ("out[0] = cuda.popc(out[0])", "popc, brev, clz and ffs take integers, not float64"),
        ("out[0] = cuda.mul24(3, 5)", "numba.cuda has no mul24: numba-cuda would not compile this kernel either"),
    ],
    ids=["selp int and float", "selp int8", "popc of a float", "mul24 is libdevice's"],
)
def test_intrinsics_numba_cuda_refuses_are_refused(statement, words):
    source = f"import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(out):\n    {statement}\n"
    for engine in ("vector", "reference"):
        with pytest.raises(gpuviz.GpuvizError, match=words):
            gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 1](np.zeros(1))
    kept = "out[0] = cuda.selp(out[0] > 0, 1.5, 2.5)"
    gpuviz.trace(source.replace(statement, kept), name="k", backend="sim")[1, 1](out := np.zeros(1))
    assert out[0] == 2.5
