"""The simulator computes in numba-cuda's types: the table it reads (backends/sim/numba_types.py) against
numba-cuda's own typing, every operator hook against that table, and the values of the cases where numba's rules
part from NumPy's against numba's own compiler (numba-cuda shares its typing and its integer code)."""

from __future__ import annotations

import importlib.util
import itertools
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


def _dtype(code: str) -> np.dtype:
    return np.dtype(bool) if code == "b" else np.dtype(code)


def _sample(dtype: np.dtype, lanes: bool):
    value = np.ones(3, dtype) if dtype.kind != "b" else np.ones(3, bool)
    value[0] = 3 if dtype.kind != "b" else True
    return value if lanes else value[0]


BINARY = [name for name in TABLES if name not in ("compare", "max", "neg", "pos", "invert", "abs")]


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
