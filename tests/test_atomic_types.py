"""cuda.atomic's operations take the element types and indices numba-cuda takes, on both engines: the types
from numba-cuda's typing (numba_types.py), the index rules from its lowering (a 1-D array's index is cast to
intp, so a float is truncated and a tuple refused; an N-D array's needs N parts). tests/test_atomic_types_gpu.py
compiles the same kernels with numba-cuda for a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import gpuviz
from gpuviz.backends.sim.arithmetic import UNARY_TYPES

OPS = ("add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "inc", "dec", "exch", "cas",
       "compare_and_swap")  # fmt: skip
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64")  # fmt: skip


def atomic_statement(op: str, index: str = "1") -> str:
    if op == "cas":
        return f"out[0] = cuda.atomic.cas(a, {index}, 0, 1)"
    if op == "compare_and_swap":
        return "out[0] = cuda.atomic.compare_and_swap(a, 0, 1)"
    return f"out[0] = cuda.atomic.{op}(a, {index}, 1)"


def atomic_source(statement: str) -> str:
    return f"import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a, out):\n    {statement}\n"


def numba_cuda_takes(op: str, dtype: str) -> bool:
    return UNARY_TYPES[f"atomic.{op}"][np.dtype(dtype)] is not None


def _accepted(source: str, array: np.ndarray, engine: str) -> bool:
    try:
        gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 1](array, np.zeros(1, array.dtype))
    except gpuviz.GpuvizError as exc:
        assert "numba-cuda" in str(exc) or "takes" in str(exc), str(exc)
        return False
    return True


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_each_atomic_takes_the_element_types_numba_cuda_takes(engine):
    wrong = []
    for op in OPS:
        for dtype in DTYPES:
            got = _accepted(atomic_source(atomic_statement(op)), np.zeros(4, dtype), engine)
            if got != numba_cuda_takes(op, dtype):
                wrong.append(f"cuda.atomic.{op} on {dtype}: gpuviz {'runs' if got else 'refuses'} it")
    assert not wrong, "\n".join(wrong)


def test_the_table_takes_what_numba_cuda_0_30_documents():
    # numba-cuda's documentation: add, sub, max, min on int32/64, uint32/64, float32/64; the bitwise ones,
    # exch and cas on the integers; inc and dec on the unsigned ones
    numbers = {"int32", "int64", "uint32", "uint64", "float32", "float64"}
    assert {d for d in DTYPES if numba_cuda_takes("add", d)} == numbers
    assert {d for d in DTYPES if numba_cuda_takes("or_", d)} == numbers - {"float32", "float64"}
    assert {d for d in DTYPES if numba_cuda_takes("inc", d)} == {"uint32", "uint64"}


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_a_float_index_is_truncated_and_a_tuple_on_one_axis_refused(engine):
    a = np.zeros(4, np.int32)
    gpuviz.trace(atomic_source("cuda.atomic.add(a, 2.9, 5)"), name="k", backend="sim", engine=engine)[1, 3](
        a, np.zeros(1, np.int32)
    )
    assert a.tolist() == [0, 0, 15, 0]
    with pytest.raises(gpuviz.GpuvizError, match="1-D array takes one number as its index"):
        gpuviz.trace(atomic_source("cuda.atomic.add(a, (1,), 5)"), name="k", backend="sim", engine=engine)[1, 1](
            a, np.zeros(1, np.int32)
        )
    grid = np.zeros((2, 2), np.int64)
    with pytest.raises(gpuviz.GpuvizError, match="compare_and_swap works on a 1-D array"):
        gpuviz.trace(atomic_source(atomic_statement("compare_and_swap")), name="k", backend="sim", engine=engine)[
            1, 1
        ](grid, np.zeros(1, np.int64))
    gpuviz.trace(atomic_source("out[0] = cuda.atomic.max(a, (1.5, 0.2), 7)"), name="k", backend="sim",
                 engine=engine)[1, 1](grid, out := np.zeros(1, np.int64))  # fmt: skip
    assert grid.tolist() == [[0, 0], [7, 0]] and out[0] == 0


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_a_refused_atomic_says_which_types_numba_cuda_takes(engine):
    with pytest.raises(gpuviz.GpuvizError) as caught:
        gpuviz.trace(atomic_source(atomic_statement("add")), name="k", backend="sim", engine=engine)[1, 1](
            np.zeros(4, np.int16), np.zeros(1, np.int16)
        )
    words = str(caught.value).splitlines()[-1]
    assert "cuda.atomic.add works on arrays of int32, int64, uint32, uint64, float32, float64, not int16" in words
    assert "line 5" in words
