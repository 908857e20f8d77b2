"""What a trace says about host-device copies (numba copies each NumPy argument in and back at every launch,
never a device or CuPy array) and about the types numba gives a kernel's locals (`acc = 0.0` is a float64)."""

import textwrap

import numpy as np
import pytest

from gpuviz.catalog.checks import evaluate, parse_check
from gpuviz.core.analysis.compare import compare_launches
from gpuviz.core.copies import copies_words, implicit_copies, is_host_array
from gpuviz.core.options import RunOptions
from gpuviz.program.script import run_script
from gpuviz.program.shims import cupy as cupy_shim
from gpuviz.program.shims.cuda import arrays as device_arrays
from gpuviz.run.session import Session

SCRIPT = """
import cupy as cp
import numpy as np
from numba import cuda, float32


@cuda.jit
def total(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        acc = {start}
        for k in range(a.shape[1]):
            acc += a[i, k] + b[i, k]
        out[i] = acc


a = np.ones((64, 8), np.float32)
b = np.ones((64, 8), np.float32)
out = np.zeros(64, np.float32)
total[2, 32](a, b, out)
d_a, d_b, d_out = cp.asarray(a), cp.asarray(b), cp.zeros(64, cp.float32)
total[2, 32](d_a, d_b, d_out)
m = cuda.mapped_array(64, np.float32)
total[2, 32](cuda.to_device(a), b, m)
assert (out == 16).all() and (d_out.get() == 16).all() and (m == 16).all()
"""


def traces(tmp_path, start: str) -> list:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(SCRIPT.format(start=start)))
    session = Session(RunOptions(backend="sim"), out_dir=None, keep_traces=True)
    run_script(path, session)
    return session.traces


def measure(text: str, trace) -> float | None:
    return evaluate(parse_check(text), trace).observed


@pytest.fixture(scope="module")
def promoted(tmp_path_factory):
    return traces(tmp_path_factory.mktemp("promoted"), "0.0")


def test_numpy_arguments_are_copied_in_and_back_and_device_arrays_never(promoted):
    numpy_launch, cupy_launch, mixed = promoted
    assert [c["array"] for c in numpy_launch.meta["host_copies"]] == ["a", "b", "out"]
    assert measure("copies == 0", numpy_launch) == 6  # three arrays, each in and back
    assert measure("copied_bytes == 0", numpy_launch) == 2 * (2 * 64 * 8 * 4 + 64 * 4)
    assert measure("copies == 0", cupy_launch) == 0 and measure("copied_bytes == 0", cupy_launch) == 0
    assert [c["array"] for c in mixed.meta["host_copies"]] == ["b"]  # to_device and mapped arrays are not copied
    assert copies_words(cupy_launch.meta) == "none: every array was on the device"
    assert copies_words(numpy_launch.meta) == "6: a, b, out in and back, 8,704 bytes"


def test_a_trace_without_the_record_says_so():
    assert copies_words({}) == "not recorded"
    assert evaluate(parse_check("copies == 0"), type("T", (), {"meta": {}})()).observed is None


def test_what_counts_as_a_host_array():
    host = np.zeros(4)
    assert is_host_array(host)
    assert not is_host_array(device_arrays.to_device(host))
    assert not is_host_array(cupy_shim.asarray(host))
    assert not is_host_array(device_arrays.mapped_array(4)) and not is_host_array(device_arrays.managed_array(4))
    assert is_host_array(device_arrays.pinned_array(4))  # pinned host memory is still copied, only faster
    assert implicit_copies(["x", "n", "y"], [host, 3, np.zeros(2, np.int32)]) == [
        {"array": "x", "bytes": 32},
        {"array": "y", "bytes": 8},
    ]


def test_the_simulator_records_the_promoted_type_of_a_local(promoted, tmp_path):
    assert promoted[0].meta["local_types"] == {"i": "int64", "acc": "float64", "k": "int64"}
    assert measure("bits(acc) == 0", promoted[0]) == 64
    single = traces(tmp_path, "float32(0)")
    assert single[0].meta["local_types"]["acc"] == "float32" and measure("bits(acc) == 0", single[0]) == 32
    assert (single[0].after("out") == 16).all()
    rows = {row[0]: row[1:] for row in compare_launches(promoted[0], single[0])}
    assert rows["float locals"] == ("acc float64", "acc float32")
    assert rows["copies host <-> device"][0].startswith("6: a, b, out")


def test_a_local_the_kernel_does_not_have_is_one_line(promoted):
    with pytest.raises(Exception, match="local total: the kernel's locals are acc, i, k"):
        measure("bits(total) == 0", promoted[0])


def test_a_device_functions_locals_are_named_by_the_function(tmp_path):
    path = tmp_path / "device.py"
    path.write_text(
        textwrap.dedent("""
        import numpy as np
        from numba import cuda

        @cuda.jit(device=True)
        def half(x):
            h = x * 0.5
            return h

        @cuda.jit
        def k(a):
            i = cuda.grid(1)
            a[i] = half(a[i])

        a = np.ones(32, np.float32)
        k[1, 32](a)
    """)
    )
    session = Session(RunOptions(backend="sim"), out_dir=None, keep_traces=True)
    run_script(path, session)
    assert session.traces[0].meta["local_types"] == {"i": "int64", "half.h": "float64"}  # x * 0.5: a float64


def test_the_copies_mark_outlines_the_array_and_says_what_crossed(promoted):
    from gpuviz.core.marks import Focus, resolve_mark

    numpy_launch, cupy_launch, _ = promoted
    copied = resolve_mark("copies of out", numpy_launch, None, Focus())
    assert copied.label == "out: copied in before the launch and back after it, 256 bytes each way"
    assert copied.count == 64 and copied.array == numpy_launch.array_names().index("out")
    assert (
        resolve_mark("copies of out", cupy_launch, None, Focus()).label == "out: in device memory already: not copied"
    )
    with pytest.raises(Exception, match="the launch has no array 'nope'"):
        resolve_mark("copies of nope", cupy_launch, None, Focus())


def test_numbas_typemap_reads_as_one_type_per_local():
    """The GPU backend's reading of numba's typing (backends/gpu/local_types.py); numba-cuda types a kernel
    for a compute capability without a GPU."""
    from gpuviz.core.local_types import typemap_locals

    compiler = pytest.importorskip("numba.cuda.compiler")
    from numba import cuda, types

    def kernel(a, out):
        i = cuda.grid(1)
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k]
        out[i] = acc

    signature = (types.float32[:, ::1], types.float32[::1])
    typed = compiler.compile_cuda(kernel, types.void, signature, cc=(9, 0))
    assert typemap_locals(typed.type_annotation.typemap, ["a", "out"]) == {"i": "int64", "acc": "float64", "k": "int64"}
