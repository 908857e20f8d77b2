"""`@vectorize(target='cuda')` on the simulator: the ufunc's call is one launch of the scalar function's own
lines, one thread per element, in the blocks numba's `forall` picks (the driver's occupancy calculator)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from gpuviz.backends.sim.device import PRESETS
from gpuviz.core.block_size import potential_block_size
from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import RunOptions
from gpuviz.core.trace.columns import READ, WRITE
from gpuviz.program.script import run_script
from gpuviz.run.session import Session

HEADER = """\
import numpy as np
from numba import cuda, vectorize


@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def scaled_sum(x, y):
    s = x + 2 * y
    return s
"""
DEF_LINE, RETURN_LINE = 6, 8


def run(tmp_path, body: str, device: str = "h200") -> Session:
    path = tmp_path / "script.py"
    path.write_text(HEADER + textwrap.dedent(body))
    session = Session(RunOptions(backend="sim", device=device), keep_traces=True)
    run_script(path, session)
    return session


def test_one_thread_per_element_in_the_blocks_numba_picks(tmp_path):
    session = run(
        tmp_path,
        """
        a = np.arange(3000, dtype=np.float32)
        b = np.full(3000, 0.5, np.float32)
        c = scaled_sum(a, b)
        assert c.dtype == np.float32 and np.array_equal(c, a + 2 * b)
    """,
    )
    (trace,) = session.traces
    assert trace.kernel == "scaled_sum" and trace.meta["param_names"] == ["x", "y", "out"]
    assert tuple(trace.meta["block"])[0] == 1024 and tuple(trace.meta["grid"])[0] == 3  # ceil(3000 / 1024)
    assert trace.meta["source_lines"] == [DEF_LINE - 1, RETURN_LINE]  # the decorator to the return
    accesses = trace.accesses
    loads, stores = accesses["kind"] == READ, accesses["kind"] == WRITE
    assert set(accesses["line"][loads]) == {DEF_LINE} and set(accesses["line"][stores]) == {RETURN_LINE}
    # thread k reads element k of each input and writes element k of the output; threads 3000.. do nothing
    assert np.array_equal(np.sort(accesses["thread"][stores]), np.arange(3000))
    assert np.array_equal(accesses["thread"], accesses["index"])


def test_block_size_follows_the_device_as_the_occupancy_calculator_does(tmp_path):
    session = run(
        tmp_path,
        """
        a = np.ones(2000, np.float32)
        assert np.array_equal(scaled_sum(a, a), np.full(2000, 3, np.float32))
    """,
        device="rtx3060-laptop",
    )
    (trace,) = session.traces
    # 1,536 threads an SM: blocks of 768 fill it twice, one block of 1,024 leaves a third idle
    assert tuple(trace.meta["block"])[0] == 768 and tuple(trace.meta["grid"])[0] == 3


def test_scalars_broadcast_out_and_shapes_as_numba_gives_them(tmp_path):
    session = run(
        tmp_path,
        """
        a = np.arange(600, dtype=np.float64).reshape(20, 30)
        d = scaled_sum(a, 1.5)
        assert d.shape == (20, 30) and np.array_equal(d, a + 3.0)
        out = np.zeros((20, 30))
        r = scaled_sum(a, a, out=out)
        assert r.shape == (20, 30) and np.array_equal(out, 3 * a)
        dev = cuda.to_device(a.astype(np.float32))
        on_device = scaled_sum(dev, dev)
        assert hasattr(on_device, "copy_to_host") and np.array_equal(on_device.copy_to_host(), 3 * a)
        assert scaled_sum(np.zeros(0, np.float32), np.zeros(0, np.float32)).shape == (0,)
    """,
    )
    assert len(session.traces) == 3  # no launch for no elements, as numba's forall


def test_reduce_halves_on_the_device_as_numba_does(tmp_path):
    session = run(
        tmp_path,
        """
        @vectorize(["float64(float64, float64)"], target="cuda")
        def plus(x, y):
            return x + y

        assert plus.reduce(np.arange(1, 12, dtype=np.float64)) == 66
    """,
    )
    # 11 elements: 10 -> 5 (odd: 4 -> 2 -> 1, then the fifth), then the eleventh
    assert [t.meta["arrays"][0]["shape"][0] for t in session.traces] == [5, 2, 1, 1, 1]


def test_forall_without_a_block_size_uses_the_same_choice(tmp_path):
    session = run(
        tmp_path,
        """
        @cuda.jit
        def double(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] *= 2

        a = np.ones(5000, np.float32)
        double.forall(a.size)(a)
        double.forall(a.size, 256)(a)
        assert np.array_equal(a, np.full(5000, 4, np.float32))
    """,
    )
    assert [tuple(t.meta["block"])[0] for t in session.traces] == [1024, 256]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("scaled_sum(np.ones(4, np.int32), np.ones(4, np.int32))", "no signature takes (int32, int32)"),
        ("scaled_sum(np.ones(4, np.float32))", "scaled_sum takes 2 arguments, not 1"),
        ("scaled_sum(np.ones(4, np.float32), np.ones(4, np.float32), out=np.ones(3, np.float32))", "out= must hold 4"),
        ("vectorize(target='cuda')(lambda x: x)", "give vectorize its signatures"),
        ("from numba import guvectorize\nguvectorize(['void(float32[:])'], '(n)', target='cuda')", "guvectorize"),
    ],
)
def test_a_wrong_call_says_what_is_allowed_in_one_line(tmp_path, body, message):
    with pytest.raises(GpuvizError) as info:
        run(tmp_path, body)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_numba_cuda_vectorize_and_other_targets(tmp_path):
    session = run(
        tmp_path,
        """
        @cuda.vectorize(["int32(int32)"])
        def negate(v):
            if v > 0:
                return -v
            return v

        assert list(negate(np.array([3, -2, 0], np.int32))) == [-3, -2, 0]

        @vectorize(["float64(float64)"])  # numba's CPU target, untouched
        def halve(v):
            return v / 2

        assert list(halve(np.array([4.0]))) == [2.0]
    """,
    )
    assert [t.kernel for t in session.traces] == ["negate"]


def test_the_occupancy_calculator_on_limits():
    h200 = PRESETS["h200"].describe()
    assert potential_block_size(h200) == 1024
    assert potential_block_size(h200, registers=64) == 1024  # 1,024 resident threads at any size from 1,024 down
    assert potential_block_size(h200, registers=40) == 768  # 2 blocks of 768 hold 1,536 threads, 1 of 1,024 fewer
    assert potential_block_size(h200, shared_bytes=100 * 1024) == 1024  # 2 blocks of 101 KiB fit in 228 KiB
    assert potential_block_size(PRESETS["t4"].describe()) == 1024
