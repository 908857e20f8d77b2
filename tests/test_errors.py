"""Errors name the thread, the line and the array; bad kernels are refused before they run."""

import numpy as np
import pytest

from gpuviz.core.errors import GpuvizError, KernelError, KernelSourceError

ADD_HALF = """from numba import cuda

@cuda.jit
def add_half(array):
    i = cuda.grid(1)
    array[i] += 0.5
"""


def test_out_of_bounds_is_recorded_with_block_thread_line_and_array(sim_run):
    array = np.zeros(1000, np.float32)
    trace = sim_run(ADD_HALF, 5, 256, array)
    assert trace.error_count == 280  # threads 1000..1279 stop at their read; the others finish
    first = trace.errors[0]
    assert first == {"kind": "out-of-bounds read", "thread": 1000, "line": 6, "array": "array", "element": 1000}
    assert (array == 0.5).all()


def test_division_by_zero_names_the_thread(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = 10 // (i - 3)\n"
    with pytest.raises(KernelError, match=r"k, block \(0,0,0\) thread \(3,0,0\), line 5: division by zero"):
        sim_run(src, 1, 8, np.zeros(8, np.int64))


def test_float_index_is_explained(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1) / 2] = 1\n"
    with pytest.raises(KernelError, match="is a float; array indices must be integers"):
        sim_run(src, 1, 2, np.zeros(8))


def test_barrier_divergence_is_reported_not_hung(sim_run):
    src = """from numba import cuda
@cuda.jit
def k(a):
    t = cuda.threadIdx.x
    if t >= 16:
        return
    cuda.syncthreads()
    a[t] = 1
"""
    a = np.zeros(32)
    trace = sim_run(src, 1, 32, a)
    assert a[:16].sum() == 16
    assert any("barrier divergence" in w and "line 7" in w for w in trace.meta["warnings"])


@pytest.mark.parametrize(
    "body, message",
    [
        ("    a[0] = undefined_thing\n", "line 5: name 'undefined_thing' is not defined"),
        ("    f = lambda x: x\n", "line 5: lambda functions are not supported"),
        ("    b = [1, 2]\n", "line 5: lists"),
        ("    try:\n        a[0] = 1\n    except Exception:\n        pass\n", "line 5: try statements"),
        ("    cuda.no_such_thing()\n", "line 5: numba.cuda has no no_such_thing: numba-cuda would not compile"),
        ("    cuda.atomic.mul(a, 0, 2)\n", "line 5: cuda.atomic.mul does not exist"),
    ],
)
def test_bad_kernel_code_is_refused_with_its_line(sim_run, body, message):
    src = "import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a):\n" + body
    with pytest.raises(KernelSourceError, match=message):
        sim_run(src, 1, 1, np.zeros(2))


def test_star_args_are_refused(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(*arrays):\n    pass\n"
    with pytest.raises(KernelSourceError, match="cannot take \\*args"):
        sim_run(src, 1, 1, np.zeros(2))


def test_wrong_argument_count(sim_run):
    with pytest.raises(GpuvizError, match=r"add_half takes 1 argument\(s\) \(array\), 2 given"):
        sim_run(ADD_HALF, 1, 1, np.zeros(2), np.zeros(2))


def test_syntax_error_in_source_names_its_line(sim_run):
    with pytest.raises(KernelSourceError, match="line 3: invalid syntax"):
        sim_run("from numba import cuda\n\ndef k(a:\n    pass\n", 1, 1)


def test_kernel_called_without_launch_config_is_explained():
    from gpuviz.program.kernel import jit

    @jit
    def k(a):
        pass

    with pytest.raises(GpuvizError, match=r"launch it with k\[grid, block\]"):
        k(np.zeros(1))


def test_python_api_with_decorated_function_and_gpuviz_cuda():
    import gpuviz
    from gpuviz import cuda

    @cuda.jit
    def fill(a, value):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = value

    a = np.zeros(10)
    trace = gpuviz.trace(fill, backend="sim")[1, 16](a, 3.5)
    assert (a == 3.5).all()
    assert trace.meta["scalars"] == {"value": 3.5}
    assert trace.kernel == "fill"


@pytest.mark.parametrize(("call", "message"), [
    (lambda g, a: g.trace(KERNEL_TEXT, colour="red")[1, 4](a), r"unknown option 'colour'; the options are: backend"),
    (lambda g, a: g.trace(KERNEL_TEXT)(a), r"give the launch first.*\[blocks, threads\]\(\*args\)"),
    (lambda g, a: g.trace(KERNEL_TEXT.replace("@cuda.jit\n", ""), name="k"), r"'k' .* plain function: decorate it"),
    (lambda g, a: g.trace(KERNEL_TEXT.replace("from numba import cuda\n", "")), r"uses 'cuda' .*from numba import"),
])  # fmt: skip
def test_python_api_mistakes_are_one_clear_line(call, message):
    import gpuviz

    with pytest.raises(GpuvizError, match=message):
        call(gpuviz, np.zeros(4))


KERNEL_TEXT = "from numba import cuda\n@cuda.jit\ndef k(x):\n    x[cuda.grid(1)] = 1\n"


def test_a_trace_echoes_as_one_short_line():
    import gpuviz

    trace = gpuviz.trace(KERNEL_TEXT, backend="sim")[4, 250](np.zeros(1000))
    assert repr(trace) == ("<Trace k grid=(4, 1, 1) block=(250, 1, 1) threads=1,000 backend=sim level=accesses: "
                           "1,000 accesses>")  # fmt: skip


def test_a_kernels_own_raise_stops_the_run_and_says_a_gpu_would_not(sim_run):
    src = ("from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i == 5:\n"
           "        raise ValueError('bad index')\n    a[i] = 1\n")  # fmt: skip
    with pytest.raises(KernelError, match=r"thread \(5,0,0\), line 6: ValueError: bad index \(the kernel's own raise"):
        sim_run(src, 1, 8, np.zeros(8))
    with pytest.raises(KernelError) as caught:  # gpuviz's own fault words, no such note
        sim_run("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1) / 2] = 1\n", 1, 2, np.zeros(8))
    assert "raise or assert" not in str(caught.value)


def test_a_shared_array_too_big_for_any_block_names_its_line_not_a_thread(sim_run):
    src = ("from numba import cuda, float64\n@cuda.jit\ndef k(a):\n    s = cuda.shared.array(16384, dtype=float64)\n"
           "    s[cuda.threadIdx.x] = 1\n    a[cuda.grid(1)] = s[cuda.threadIdx.x]\n")  # fmt: skip
    with pytest.raises(GpuvizError, match=r"^k, line 4: the kernel declares 131,072 bytes of static shared memory"):
        sim_run(src, 1, 32, np.zeros(32))
