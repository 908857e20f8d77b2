"""The numba.cuda stand-in: the names kernels import, numba's random numbers, and what numba does at
compile time (frozen globals), each checked against numba-cuda itself or a NumPy reference."""

import numpy as np
import pytest

import gpuviz
from gpuviz.core.options import RunOptions
from gpuviz.program.script import run_script, shims_for
from gpuviz.run.session import Session


def run_text(tmp_path, text: str) -> Session:
    script = tmp_path / "script.py"
    script.write_text(text)
    session = Session(RunOptions(backend="sim", level="accesses"), keep_traces=True)
    run_script(script, session)
    return session


def test_type_names_and_submodules_import_as_from_numba_cuda():
    import numba

    with shims_for("sim"):
        from numba.cuda import complex128, float32, int32, void
        from numba.cuda.random import create_xoroshiro128p_states
        from numba.cuda.types import int32 as types_int32

    assert (float32, int32, complex128, void) == (numba.float32, numba.int32, numba.complex128, numba.void)
    assert types_int32 is numba.int32 and callable(create_xoroshiro128p_states)


@pytest.mark.parametrize("seed, subsequence", [(1, 0), (42, 0), (2**40 + 7, 3)])
def test_random_states_are_numba_cudas(seed, subsequence):
    numba_random = pytest.importorskip("numba.cuda.random")  # numba-cuda's host code, no GPU needed
    from gpuviz.program.shims.cuda import random as ours

    theirs = np.empty(300, numba_random.xoroshiro128p_dtype)
    numba_random.init_xoroshiro128p_states_cpu(theirs, seed, subsequence)
    mine = np.empty(300, ours.xoroshiro128p_dtype)
    ours.init_xoroshiro128p_states_cpu(mine, seed, subsequence)
    assert np.array_equal(theirs["s0"], mine["s0"]) and np.array_equal(theirs["s1"], mine["s1"])


def test_draws_inside_a_kernel_are_numba_cudas(tmp_path):
    numba_random = pytest.importorskip("numba.cuda.random")
    session = run_text(tmp_path, """
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
from numba.cuda.random import xoroshiro128p_normal_float64

@cuda.jit
def k(out, normals, states):
    i = cuda.grid(1)
    out[i, 0] = xoroshiro128p_uniform_float32(states, i)
    out[i, 1] = xoroshiro128p_uniform_float32(states, i)
    normals[i] = xoroshiro128p_normal_float64(states, i)

states = create_xoroshiro128p_states(64, seed=7)
out = np.zeros((64, 2), np.float32)
normals = np.zeros(64)
k[2, 32](out, normals, states)
np.save(OUT + "/out.npy", out)
np.save(OUT + "/normals.npy", normals)
""".replace("OUT", repr(str(tmp_path))))
    assert session.traces
    states = np.empty(64, numba_random.xoroshiro128p_dtype)
    numba_random.init_xoroshiro128p_states_cpu(states, 7, 0)
    uniform = numba_random.xoroshiro128p_uniform_float32
    expected = np.array([[uniform(states, i), uniform(states, i)] for i in range(64)], np.float32)
    normals = np.array([numba_random.xoroshiro128p_normal_float64(states, i) for i in range(64)])
    assert np.array_equal(np.load(tmp_path / "out.npy"), expected)  # the very same numbers
    np.testing.assert_allclose(np.load(tmp_path / "normals.npy"), normals, rtol=1e-6)  # libm may differ by an ulp


def test_reduce_and_cooperative_limits(tmp_path):
    run_text(tmp_path, """
import numpy as np
from numba import cuda

@cuda.reduce
def sum_reduce(a, b):
    return a + b

assert sum_reduce(np.arange(100)) == 4950
assert cuda.Reduce(lambda a, b: max(a, b))(np.array([3.0, 9.0, 1.0])) == 9.0

@cuda.jit("void(int32[:])")
def k(a):
    cuda.cg.this_grid().sync()

assert k.overloads["void(int32[:])"].max_cooperative_grid_blocks(256) == 8 * 132
assert k.max_cooperative_grid_blocks((32, 32)) == 2 * 132
""")


def test_globals_are_frozen_at_the_first_launch_and_their_reads_recorded(tmp_path):
    session = run_text(tmp_path, """
import numpy as np
from numba import cuda

TABLE = np.array([1.0, 2.0, 3.0])

@cuda.jit
def k(out):
    i = cuda.grid(1)
    out[i] = TABLE[i]

out = np.zeros(3)
k[1, 3](out)
TABLE[:] = 10.0
k[1, 3](out)
assert list(out) == [1.0, 2.0, 3.0]
""")
    trace = session.traces[1]
    entry = trace.meta["arrays"].index(next(a for a in trace.meta["arrays"] if a["name"] == "TABLE"))
    assert trace.meta["arrays"][entry]["space"] == "const"
    reads = trace.accesses["array"] == entry
    assert sorted(trace.accesses["index"][reads].tolist()) == [0, 1, 2]
    assert trace.analysis["races"]["racy"] is False


def test_ufunc_inside_a_kernel_records_each_element(sim_run):
    src = "import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(r, x):\n    np.sin(x, r)\n"
    x = np.arange(5, dtype=np.float32)
    r = np.zeros_like(x)
    trace = sim_run(src, 1, 1, r, x)
    np.testing.assert_allclose(r, np.sin(x))
    kinds = trace.accesses["kind"].tolist()
    assert kinds.count(0) == 5 and kinds.count(1) == 5  # a read of x and a write of r per element


def test_print_in_a_kernel_belongs_to_its_thread(sim_run, capsys):
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    print(i, 999)\n"
    trace = sim_run(src, 2, 3, np.zeros(1))
    printed = trace.meta["printed"]
    assert sorted((p["thread"], p["text"]) for p in printed) == [(i, f"{i} 999") for i in range(6)]
    assert all(p["line"] == 5 for p in printed)
    assert "5 999" in capsys.readouterr().out


def test_dynamic_shared_memory_gets_the_launch_size(tmp_path):
    run_text(tmp_path, """
import numpy as np
from numba import cuda, float32

@cuda.jit
def reverse(a):
    s = cuda.shared.array(0, dtype=float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    a[t] = s[cuda.blockDim.x - 1 - t]
    if t == 0:
        a[0] = a[0] + 1000 * s.size

a = np.arange(16, dtype=np.float32)
reverse[1, 16, 0, 16 * 4](a)
assert a[0] == 15 + 16000 and a[15] == 0
""")


def test_atomic_passed_as_a_value_is_recorded_as_an_atomic(sim_run):
    src = """from numba import cuda
@cuda.jit(device=True)
def apply(op, a, v):
    op(a, 0, v)
@cuda.jit
def k(a):
    apply(cuda.atomic.add, a, 1)
"""
    a = np.zeros(1)
    trace = sim_run(src, 2, 32, a)
    assert a[0] == 64
    assert (trace.accesses["kind"] == 2).sum() == 64 and not trace.analysis["races"]["racy"]


def test_grid_sync_orders_blocks_for_the_race_analysis(sim_run):
    src = """from numba import cuda
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    a[i] = i
    cuda.cg.this_grid().sync()
    out[i] = a[a.size - 1 - i]
"""
    a, out = np.zeros(64), np.zeros(64)
    trace = sim_run(src, 2, 32, a, out)
    assert list(out) == list(range(63, -1, -1)) and not trace.analysis["races"]["racy"]


def test_device_arrays_and_streams(tmp_path):
    run_text(tmp_path, """
import numpy as np
from numba import cuda

@cuda.jit
def double(a):
    a[cuda.grid(1)] *= 2

stream = cuda.stream()
d = cuda.to_device(np.arange(4.0), stream=stream)
double[1, 4, stream](d)
stream.synchronize()
cuda.synchronize()
host = np.zeros(4)
d.copy_to_host(host, stream=stream)
assert list(host) == [0.0, 2.0, 4.0, 6.0]
assert cuda.device_array_like(host).shape == (4,)
""")


def test_gpuviz_trace_api_still_takes_kernels():
    kernel = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    a = np.zeros(4)
    gpuviz.trace(kernel, backend="sim")[1, 4](a)
    assert a.sum() == 4


def test_match_sync_and_lanemask(sim_run):
    src = """from numba import cuda
@cuda.jit
def k(any_mask, all_mask, lt):
    i = cuda.threadIdx.x
    any_mask[i] = cuda.match_any_sync(0xFFFFFFFF, i % 2)
    m, pred = cuda.match_all_sync(0xFFFFFFFF, 7)
    all_mask[i] = m * pred
    lt[i] = cuda.lanemask_lt()
"""
    any_mask, all_mask, lt = (np.zeros(32, np.int64) for _ in range(3))
    sim_run(src, 1, 32, any_mask, all_mask, lt)
    evens = sum(1 << k for k in range(0, 32, 2))
    # numba types both masks int32 (lane 31 is the sign bit) and lanemask_lt uint32
    assert list(any_mask[:2]) == [evens, (evens << 1) - (1 << 32)]
    assert (all_mask == -1).all() and list(lt[:4]) == [0, 1, 3, 7]


def test_dynamic_shared_declarations_alias_one_buffer(tmp_path):
    run_text(tmp_path, """
import numpy as np
from numba import cuda, int32, float32

@cuda.jit
def k(out):
    ints = cuda.shared.array(0, dtype=int32)
    floats = cuda.shared.array(0, dtype=float32)
    ints[0] = 1065353216  # the bits of 1.0f
    cuda.syncthreads()
    out[0] = floats[0]

out = np.zeros(1, np.float32)
k[1, 1, 0, 16](out)
assert out[0] == 1.0
""")


def test_the_trace_says_what_it_did_not_record(tmp_path):
    session = run_text(tmp_path, """
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

@cuda.jit
def k(out, states):
    i = cuda.grid(1)
    row = out[i:i + 1]
    row[0] = xoroshiro128p_uniform_float32(states, i)

k[1, 8](np.zeros(8, np.float32), create_xoroshiro128p_states(8, seed=3))
""")
    notes = session.traces[0].meta["unrecorded"]
    assert notes == [
        "accesses through the slice out[i:i + 1] (line 9) are not recorded",
        "the RNG state reads and writes of xoroshiro128p_uniform_float32 (line 10) are not recorded",
    ]
    assert "states" not in session.traces[0].args  # record arrays have no numbers to snapshot


def test_global_device_arrays_are_read_live_and_said_unrecorded(tmp_path):
    session = run_text(tmp_path, """
import numpy as np
from numba import cuda

PRICES = cuda.to_device(np.array([1.0, 2.0]))

@cuda.jit
def k(out):
    out[cuda.grid(1)] = PRICES[cuda.grid(1)]

out = np.zeros(2)
k[1, 2](out)
PRICES.copy_to_device(np.array([5.0, 6.0]))
k[1, 2](out)
assert list(out) == [5.0, 6.0]
""")
    note = "accesses to the module-global device array PRICES (line 8) are not recorded"  # the def line
    assert session.traces[1].meta["unrecorded"] == [note]


def test_an_explicit_signature_types_the_launchs_numbers_as_numba_passes_them():
    """numba converts a launch's numbers to its eager signature's types (wrapping as C does), picking the
    first signature whose arrays fit; where none fits, numba-cuda refuses the launch, and so does gpuviz."""
    from numba import types

    from gpuviz.core.errors import GpuvizError
    from gpuviz.program.signatures import declared_arguments

    a32, a64 = np.zeros(1, np.int32), np.zeros(1, np.float64)
    out = declared_arguments(("void(int32[:], uint32)",), (a32, 0x00100000))
    assert out[0] is a32 and type(out[1]) is np.uint32 and out[1] == 0x00100000
    assert declared_arguments(("void(int32[:], int32)",), (a32, 0xFFFFFFFF))[1] == -1
    both = ("void(float64[:], float32)", (types.int32[:], types.int16))
    assert type(declared_arguments(both, (a32, 3))[1]) is np.int16
    assert type(declared_arguments(both, (a64, 3))[1]) is np.float32
    with pytest.raises(GpuvizError, match=r"No matching definition for argument type\(s\) array\(uint8, 1d, C\)"):
        declared_arguments(both, (np.zeros(1, np.uint8), 3))  # no signature fits: numba-cuda refuses the launch
    assert declared_arguments((), (a32, 3)) == (a32, 3)
    assert declared_arguments(("void()",), ()) == ()  # a kernel of no arguments fits its signature


def test_gpuviz_trace_of_an_eager_kernel_passes_its_numbers_as_the_signature_types_them():
    """The API's launches convert as a script's do: an int32 parameter gets 2**32 + 2 as 2, and an array of
    another type is refused as numba-cuda refuses it."""
    from gpuviz.core.errors import GpuvizError

    source = (
        "from numba import cuda\n@cuda.jit('void(float32[:], int32)')\ndef k(a, n):\n    i = cuda.grid(1)\n"
        "    if i < n:\n        a[i] = a[i] + n / 3\n"
    )
    for n, expected in ((2**32 + 2, 2), (2.7, 2)):
        a = np.arange(4, dtype=np.float32)
        gpuviz.trace(source, backend="sim")[1, 4](a, n)
        np.testing.assert_allclose(a, [0 + expected / 3, 1 + expected / 3, 2, 3], rtol=1e-6)
    with pytest.raises(GpuvizError, match="No matching definition"):
        gpuviz.trace(source, backend="sim")[1, 4](np.arange(4.0), 4)
