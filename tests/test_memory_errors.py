"""Memory errors are recorded like compute-sanitizer's memcheck lists them, and the run goes on:
out-of-bounds accesses stop only their threads, uninitialised shared reads and barrier divergence are
listed, the trace keeps them, and `gpuviz run` exits non-zero unless --allow-errors."""

import numpy as np

import gpuviz
from gpuviz.cli import main
from gpuviz.core.analysis.memcheck import format_errors

VECADD = """import numpy as np
from numba import cuda

@cuda.jit
def vecadd(A, B, C):
    work_index = cuda.grid(1)
    C[work_index] = A[work_index] + B[work_index]

vector_size = 2**12 + 11
a = np.random.uniform(-1, 1, vector_size)
b = np.random.uniform(-1, 1, vector_size)
c = np.zeros_like(a)
block_size = 256
grid_size = int(np.ceil(vector_size / block_size))
vecadd[grid_size, block_size](a, b, c)
np.testing.assert_array_almost_equal(c, a + b)
print("Test succeeded")
vecadd[1, 32](a, b, c)
"""


def test_unguarded_vecadd_runs_to_its_end_with_the_out_of_bounds_report(tmp_path, capsys):
    script = tmp_path / "vecadd.py"
    script.write_text(VECADD)
    assert main(["run", str(script), "--out", str(tmp_path / "traces")]) == 1
    captured = capsys.readouterr()
    assert "Test succeeded" in captured.out
    assert "memory errors: 245 in vecadd" in captured.err and "out-of-bounds read of 'A' at line 7" in captured.err
    assert "an out-of-bounds access either aborts" in captured.err and "no thread of its block" not in captured.err
    trace = gpuviz.load(tmp_path / "traces" / "000-vecadd.npz")
    assert trace.error_count == 245
    threads = [e["thread"] for e in trace.errors]
    assert threads == list(range(16 * 256 + 11, 17 * 256))  # the last block's threads 11..255
    assert {tuple(trace.threads["block_idx"][t]) for t in threads} == {(16, 0, 0)}
    assert (tmp_path / "traces" / "001-vecadd.npz").is_file()  # the next launch ran too
    assert main(["run", str(script), "--out", str(tmp_path / "t2"), "--allow-errors"]) == 0
    assert main(["info", str(tmp_path / "traces" / "000-vecadd.npz")]) == 0
    listing = capsys.readouterr().out
    assert "errors   memory errors: 245" in listing and "block (16,0,0) thread (11,0,0), element 4107" in listing


def test_out_of_bounds_write_is_dropped_and_the_thread_stops(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(a, b):\n    i = cuda.grid(1)\n    a[i] = 1\n    b[i] = 2\n"
    a, b = np.zeros(30), np.zeros(64)
    trace = sim_run(src, 1, 32, a, b)
    assert a.sum() == 30 and b.sum() == 60  # threads 30, 31 stopped at their first fault
    assert [(e["kind"], e["array"], e["line"]) for e in trace.errors] == [("out-of-bounds write", "a", 5)] * 2


def test_uninitialised_shared_read_is_listed(sim_run):
    src = """from numba import cuda, float32
@cuda.jit
def k(out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = t
    cuda.syncthreads()
    out[t] = s[t]
"""
    out = np.ones(32, np.float32)
    trace = sim_run(src, 1, 32, out)
    assert trace.error_count == 16
    assert {(e["kind"], e["array"], e["line"]) for e in trace.errors} == {("uninitialised shared read", "s", 9)}
    assert sorted(e["element"] for e in trace.errors) == list(range(16, 32))
    header = format_errors(trace)[0]  # what this kind of error does, not what an out-of-bounds access does
    assert "no thread of its block wrote" in header and "out-of-bounds" not in header


def test_barrier_divergence_is_an_error_too(sim_run):
    src = """from numba import cuda
@cuda.jit
def k(a):
    t = cuda.threadIdx.x
    if t >= 16:
        return
    cuda.syncthreads()
    a[t] = 1
"""
    trace = sim_run(src, 1, 32, np.zeros(32))
    assert [(e["kind"], e["line"]) for e in trace.errors] == [("barrier divergence", 7)]


def test_errors_survive_save_and_load(sim_run, tmp_path):
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    trace = sim_run(src, 1, 8, np.zeros(4))
    loaded = gpuviz.load(trace.save(tmp_path / "t.npz"))
    assert loaded.errors == trace.errors and loaded.error_count == 4


def test_recorded_out_of_bounds_elements_become_errors():
    from gpuviz.core.analysis.memcheck import recorded_out_of_bounds

    accesses = {
        "thread": np.array([0, 1, 2, 3], np.int32), "array": np.array([0, 0, 1, 1], np.int16),
        "index": np.array([3, 4, 5, 6], np.int64), "kind": np.array([0, 1, 0, 2], np.int8),
        "line": np.array([7, 8, 9, 10], np.int32),
    }  # fmt: skip
    arrays = [{"name": "a", "shape": [4]}, {"name": "m", "shape": [2, 3]}]
    errors, count = recorded_out_of_bounds(accesses, arrays)
    assert count == 2
    assert errors == [
        {"kind": "out-of-bounds write", "thread": 1, "line": 8, "array": "a", "element": 4},
        {"kind": "out-of-bounds atomic", "thread": 3, "line": 10, "array": "m", "element": 6},
    ]


def test_the_gpus_out_of_bounds_accesses_are_errors_not_elements():
    from gpuviz.core.analysis.memcheck import recorded_out_of_bounds, within_bounds

    accesses = {"thread": np.arange(4, dtype=np.int32), "array": np.zeros(4, np.int16),
                "index": np.array([0, 99, 100, 127]), "kind": np.ones(4, np.int8)}  # fmt: skip
    arrays = [{"name": "a", "space": "global", "dtype": "float32", "shape": [100]}]
    errors, count = recorded_out_of_bounds({**accesses, "line": np.full(4, 5, np.int32)}, arrays)
    assert count == 2 and [e["element"] for e in errors] == [100, 127]
    kept = within_bounds(accesses, arrays)
    assert kept["index"].tolist() == [0, 99] and kept["thread"].tolist() == [0, 1]
