"""Recording leaves results alone: every element type and the bit intrinsics at both widths give
what numba's own kernel gives, at both levels (marker `gpu`; the logic also runs under numba's CUDA
simulator)."""

import numpy as np
import pytest

import gpuviz

pytestmark = pytest.mark.gpu

DTYPES = ["complex64", "complex128", "int8", "int16", "uint32", "uint64", "bool", "float16"]
HEAD = "from numba import cuda\n\n@cuda.jit\ndef k(a, b):\n    i = cuda.grid(1)\n    if i < a.size:\n"
COPY = HEAD + "        b[i] = a[i]\n        a[i] = b[i]\n"
INTRINSIC = HEAD + "        b[i] = cuda.{name}(a[i])\n"


def _plain(source, grid, block, args):
    from numba import cuda

    namespace = {}
    exec(compile(source, "<plain>", "exec"), namespace)
    device = [cuda.to_device(a) for a in args]
    namespace["k"][grid, block](*device)
    return [d.copy_to_host() for d in device]


def _inputs(dtype: str, n: int = 100) -> np.ndarray:
    values = np.random.default_rng(1).integers(0, 120, n)
    if dtype.startswith("complex"):
        return (values + 1j * values[::-1]).astype(dtype)
    return values.astype(dtype)


@pytest.mark.parametrize("level", ["accesses", "threads"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_element_type_records_with_the_plain_results(dtype, level):
    a, b = _inputs(dtype), np.zeros(100, dtype)
    expected = _plain(COPY, 2, 64, [a.copy(), b.copy()])
    gpuviz.trace(COPY, name="k", backend="gpu", level=level)[2, 64](a, b)
    np.testing.assert_array_equal(a, expected[0])
    np.testing.assert_array_equal(b, expected[1])


@pytest.mark.parametrize("level", ["accesses", "threads"])
@pytest.mark.parametrize("dtype", ["uint32", "uint64", "int32", "int64"])
@pytest.mark.parametrize("name", ["clz", "brev", "popc", "ffs"])
def test_bit_intrinsics_keep_their_operand_types(name, dtype, level):
    if name == "brev" and dtype.startswith("int"):
        pytest.skip("numba's brev takes unsigned operands")
    a = (np.random.default_rng(2).integers(1, 2**31, 100) | (1 << 20)).astype(dtype)
    out_dtype = np.uint64 if dtype.endswith("64") else np.uint32
    source = INTRINSIC.format(name=name)
    expected = _plain(source, 2, 64, [a.copy(), np.zeros(100, out_dtype)])[1]
    b = np.zeros(100, out_dtype)
    gpuviz.trace(source, name="k", backend="gpu", level=level)[2, 64](a, b)
    np.testing.assert_array_equal(b, expected)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_values_are_logged_whole_and_replayed(dtype, tmp_path):
    """The log keeps both parts of a complex value: the saved and loaded trace's writes to b hold a's
    values, and the replay's last frame is the launch's result."""
    from gpuviz.core.replay import Replay
    from gpuviz.core.trace.reader import load

    a, b = _inputs(dtype), np.zeros(100, dtype)
    trace = gpuviz.trace(COPY, name="k", backend="gpu", level="accesses")[2, 64](a, b)
    trace = load(trace.save(tmp_path / "complex.npz"))
    acc = trace.accesses
    writes = np.flatnonzero((acc["array"] == trace.array_names().index("b")) & (acc["kind"] == 1))
    logged = acc["value"][writes] + 1j * acc["imag"][writes]
    np.testing.assert_array_equal(logged, a[acc["index"][writes]])
    replay = Replay(trace)
    np.testing.assert_array_equal(replay.values_at(1, replay.events), b)
