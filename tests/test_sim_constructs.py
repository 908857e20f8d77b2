"""Every construct the simulator honours, each checked against a NumPy reference."""

import numpy as np
import pytest

HEADER = "import math\nimport numpy as np\nfrom numba import cuda, float32, float64, int32, int64\n"


def kernel(body: str) -> str:
    return HEADER + body


CASES = {}


def case(name, source, grid, block, make, check):
    CASES[name] = (kernel(source), grid, block, make, check)


case(
    "grid_1d", """
@cuda.jit
def k(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * 2
""", 3, 64, lambda: (np.zeros(150, np.int64),),
    lambda out: np.array_equal(out, np.arange(150) * 2),
)
case(
    "indices_2d", """
@cuda.jit
def k(out):
    x = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    y = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x] = 1000 * y + x + cuda.gridDim.x * 0
""", (3, 2), (4, 8), lambda: (np.zeros((16, 12), np.int64),),
    lambda out: np.array_equal(out, np.add.outer(1000 * np.arange(16), np.arange(12))),
)
case(
    "grid_3d_and_gridsize", """
@cuda.jit
def k(out, sizes):
    x, y, z = cuda.grid(3)
    out[z, y, x] = x + 10 * y + 100 * z
    if x == 0 and y == 0 and z == 0:
        sx, sy, sz = cuda.gridsize(3)
        sizes[0] = sx
        sizes[1] = sy
        sizes[2] = sz
        sizes[3] = cuda.gridDim.z * cuda.blockDim.z
""", (2, 2, 2), (2, 3, 2), lambda: (np.zeros((4, 6, 4), np.int64), np.zeros(4, np.int64)),
    lambda out, sizes: np.array_equal(out, np.fromfunction(lambda z, y, x: x + 10 * y + 100 * z, (4, 6, 4)))
    and list(sizes) == [4, 6, 4, 4],
)
case(
    "grid_stride_loop", """
@cuda.jit
def k(a):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.size, stride):
        a[i] = a[i] * 3
""", 2, 32, lambda: (np.arange(1000, dtype=np.int64),),
    lambda a: np.array_equal(a, np.arange(1000) * 3),
)
case(
    "shared_reduction", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    step = 32
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]
""", 4, 64, lambda: (np.arange(256, dtype=np.float32), np.zeros(4, np.float32)),
    lambda a, out: np.allclose(out, np.arange(256).reshape(4, 64).sum(1)),
)
case(
    "shared_2d_keyword_dtype", """
@cuda.jit
def k(out):
    tile = cuda.shared.array(shape=(4, 4), dtype=int32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = ty * 4 + tx
    cuda.syncthreads()
    out[cuda.blockIdx.x, ty, tx] = tile[tx, ty]
""", 2, (4, 4), lambda: (np.zeros((2, 4, 4), np.int32),),
    lambda out: all(np.array_equal(out[b], np.arange(16).reshape(4, 4).T) for b in range(2)),
)
case(
    "syncthreads_count_and_or", """
@cuda.jit
def k(out):
    t = cuda.threadIdx.x
    n = cuda.syncthreads_count(1 if t % 3 == 0 else 0)
    every = cuda.syncthreads_and(1 if t < 100 else 0)
    some = cuda.syncthreads_or(1 if t == 5 else 0)
    if t == 0:
        out[0] = n
        out[1] = every
        out[2] = some
""", 1, 48, lambda: (np.zeros(3, np.int64),),
    lambda out: list(out) == [16, 1, 1],
)
case(
    "local_array_and_early_return", """
@cuda.jit
def k(out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    tmp = cuda.local.array(4, int64)
    for j in range(4):
        tmp[j] = i + j
    total = 0
    for j in range(4):
        total += tmp[j]
    out[i] = total
""", 2, 32, lambda: (np.zeros(50, np.int64),),
    lambda out: np.array_equal(out, 4 * np.arange(50) + 6),
)
case(
    "const_array_like", """
@cuda.jit
def k(table, out):
    c = cuda.const.array_like(table)
    i = cuda.grid(1)
    out[i] = c[i % 4] * 2
""", 1, 16, lambda: (np.array([1, 2, 3, 4], np.int32), np.zeros(16, np.int32)),
    lambda table, out: np.array_equal(out, np.tile([2, 4, 6, 8], 4)),
)
case(
    "atomics_all", """
@cuda.jit
def k(ints, floats, olds, counters):
    i = cuda.grid(1)
    cuda.atomic.add(ints, 0, 1)
    cuda.atomic.sub(ints, 1, 2)
    cuda.atomic.max(ints, 2, i)
    cuda.atomic.min(ints, 3, i)
    cuda.atomic.and_(ints, 4, 0xFF ^ (1 << (i % 8)))
    cuda.atomic.or_(ints, 5, 1 << (i % 8))
    cuda.atomic.xor(ints, 6, 1)
    cuda.atomic.inc(counters, 0, 9)
    cuda.atomic.dec(counters, 1, 100)
    cuda.atomic.exch(ints, 9, 42)
    olds[i] = cuda.atomic.cas(ints, 10, i, i + 1)
    cuda.atomic.add(floats, 0, 0.5)
    cuda.atomic.nanmax(floats, 1, i * 1.0)
    cuda.atomic.nanmin(floats, 2, i * 1.0)
""", 2, 32,
    lambda: (np.array([0, 0, -1, 999, 0xFF, 0, 0, 0, 50, 0, 0], np.int64),
             np.array([0.0, np.nan, np.nan]), np.zeros(64, np.int64), np.array([0, 50], np.uint32)),
    lambda ints, floats, olds, counters: list(ints[:10]) == [64, -128, 63, 0, 0, 0xFF, 0, 0, 50, 42]
    and ints[10] == 64 and floats[0] == 32.0 and floats[1] == 63 and floats[2] == 0
    and list(counters) == [64 % 10, 87],
)
case(
    "device_functions_with_arrays_and_barrier", """
@cuda.jit(device=True)
def load_and_sync(src, dst, i, t):
    dst[t] = src[i]
    cuda.syncthreads()
    return dst[(t + 1) % 32]

@cuda.jit(device=True)
def twice(x):
    return 2 * x

@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int64)
    i = cuda.grid(1)
    out[i] = twice(load_and_sync(a, s, i, cuda.threadIdx.x))
""", 2, 32, lambda: (np.arange(64, dtype=np.int64), np.zeros(64, np.int64)),
    lambda a, out: np.array_equal(out, 2 * np.roll(np.arange(64).reshape(2, 32), -1, axis=1).ravel()),
)
case(
    "kernel_called_from_a_kernel", """
@cuda.jit
def scale(x, f):
    return x * f

@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    out[i] = scale(a[i], 3)
""", 2, 32, lambda: (np.arange(64, dtype=np.int64), np.zeros(64, np.int64)),
    lambda a, out: np.array_equal(out, 3 * np.arange(64)),
)  # numba-cuda compiles a plain @cuda.jit function called from a kernel as a device function
case(
    "warp_shuffles", """
@cuda.jit
def k(out):
    lane = cuda.laneid
    m = 0xFFFFFFFF
    out[0, lane] = cuda.shfl_sync(m, lane * 10, 3)
    out[1, lane] = cuda.shfl_up_sync(m, lane * 10, 2)
    out[2, lane] = cuda.shfl_down_sync(m, lane * 10, 4)
    out[3, lane] = cuda.shfl_xor_sync(m, lane * 10, 1)
    out[4, lane] = cuda.ballot_sync(m, lane % 2 == 0)
    out[5, lane] = cuda.all_sync(m, lane < 32)
    out[6, lane] = cuda.any_sync(m, lane == 7)
    out[7, lane] = cuda.activemask()
    cuda.syncwarp()
    out[8, lane] = cuda.warpsize
""", 1, 32, lambda: (np.zeros((9, 32), np.int64),),
    lambda out: list(out[0]) == [30] * 32
    and list(out[1]) == [0, 10] + [10 * (i - 2) for i in range(2, 32)]
    and list(out[2]) == [10 * (i + 4) for i in range(28)] + [10 * i for i in range(28, 32)]
    and list(out[3]) == [10 * (i ^ 1) for i in range(32)]
    and set(out[4]) == {0x55555555} and set(out[5]) == {1} and set(out[6]) == {1}
    and set(out[7]) == {0xFFFFFFFF} and set(out[8]) == {32},
)
case(
    "divergent_activemask", """
@cuda.jit
def k(out):
    lane = cuda.laneid
    if lane < 8:
        out[lane] = cuda.activemask()
    else:
        out[lane] = 0
""", 1, 32, lambda: (np.zeros(32, np.int64),),
    lambda out: set(out[:8]) == {0xFF} and set(out[8:]) == {0},
)
case(
    "math_functions", """
@cuda.jit
def k(x, out):
    i = cuda.grid(1)
    out[i] = math.sqrt(x[i]) + math.sin(x[i]) + math.exp(-x[i]) + abs(-x[i]) + min(x[i], 1.0) + math.floor(x[i])
""", 1, 8, lambda: (np.linspace(0.5, 4, 8), np.zeros(8)),
    lambda x, out: np.allclose(out, np.sqrt(x) + np.sin(x) + np.exp(-x) + x + np.minimum(x, 1) + np.floor(x)),
)
case(
    "float32_stays_float32", """
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    out[i] = a[i] * a[i]
""", 1, 4, lambda: (np.array([1.1, 2.2, 3.3, 4.4], np.float32), np.zeros(4, np.float32)),
    lambda a, out: out.dtype == np.float32 and np.array_equal(out, a * a),
)
case(
    "array_attributes", """
@cuda.jit
def k(m, out):
    if cuda.grid(1) == 0:
        out[0] = m.size
        out[1] = m.shape[0]
        out[2] = m.shape[1]
        out[3] = m.ndim
""", 1, 1, lambda: (np.zeros((3, 5)), np.zeros(4, np.int64)),
    lambda m, out: list(out) == [15, 3, 5, 2],
)
case(
    "bit_intrinsics", """
@cuda.jit
def k(out):
    out[0] = cuda.popc(int32(0b1011))
    out[1] = cuda.brev(int32(1))
    out[2] = cuda.clz(int32(1))
    out[3] = cuda.ffs(8)
    out[4] = cuda.fma(2, 3, 4)
    cuda.threadfence()
""", 1, 1, lambda: (np.zeros(5, np.int64),),
    lambda out: list(out) == [3, 2**31, 31, 4, 10],
)
case(
    "tuple_and_multiple_targets", """
@cuda.jit
def k(a, b):
    i = cuda.grid(1)
    a[i], b[i] = i, 2 * i
    a[i + 8] = b[i + 8] = 7
""", 1, 8, lambda: (np.zeros(16, np.int64), np.zeros(16, np.int64)),
    lambda a, b: list(a) == list(range(8)) + [7] * 8 and list(b) == [2 * i for i in range(8)] + [7] * 8,
)


@pytest.mark.parametrize("schedule", ["gpu", "sequential"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_construct_matches_numpy(name, schedule, sim_run):
    source, grid, block, make, check = CASES[name]
    args = make()
    trace = sim_run(source, grid, block, *args, name="k", schedule=schedule)
    assert check(*args), f"{name} on {schedule}: {args}"
    assert not trace.meta["warnings"]


def test_device_function_from_decorator_with_signature(sim_run):
    source = kernel('''
@cuda.jit("int64(int64)", device=True)
def inc(x):
    return x + 1

@cuda.jit("void(int64[:])")
def k(a):
    a[cuda.grid(1)] = inc(cuda.grid(1))
''')
    a = np.zeros(8, np.int64)
    sim_run(source, 1, 8, a, name="k")
    assert list(a) == list(range(1, 9))


def test_a_recursive_device_function_runs_on_the_reference_engine_by_declaration():
    """numba-cuda compiles recursion (its own test_recursion.py); the vector engine, whose lanes would recurse to
    different depths, declares it and the launch line says so (before: RecursionError, called a gpuviz bug)."""
    import gpuviz

    source = """
from numba import cuda
@cuda.jit(device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
@cuda.jit
def k(out):
    i = cuda.threadIdx.x
    out[i] = fib(i)
"""
    out = np.zeros(8, np.int64)
    trace = gpuviz.trace(source, name="k", backend="sim")[1, 8](out)
    assert list(out) == [0, 1, 1, 2, 3, 5, 8, 13]
    assert trace.meta["engine"] == "reference" and "recursive device function fib" in trace.meta["engine_note"]


DECLARED = """
from numba import cuda
@cuda.jit("f4(f8)", device=True)
def third32(x):
    return x / 3.0
@cuda.jit("i4(i8)", device=True)
def narrow(x):
    return x
@cuda.jit("int32(float32, float32)", device=True)
def ratio(a, b):
    return a / b
@cuda.jit
def k(out):
    out[0] = third32(1.0)
    out[1] = narrow(2**32 + 7)
    out[2] = ratio(7.0, 2.0)
"""


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_a_device_functions_declared_signature_converts_its_arguments_and_result(engine):
    """numba-cuda converts to the declared types on the way in and out (numba's njit gives the same numbers)."""
    import gpuviz

    out = np.zeros(3, np.float64)
    gpuviz.trace(DECLARED, name="k", backend="sim", engine=engine)[1, 1](out)
    assert list(out) == [float(np.float32(1 / 3)), 7.0, 3.0]


def test_a_store_into_a_module_level_array_is_refused_in_words_as_numba_refuses_it():
    import gpuviz

    source = """
import numpy as np
from numba import cuda
TABLE = np.zeros(4)
@cuda.jit
def k(out):
    i = cuda.grid(1)
    TABLE[i] = 1.0
    out[i] = TABLE[i]
"""
    with pytest.raises(gpuviz.GpuvizError, match="a store into a module-level array: numba-cuda copies"):
        gpuviz.trace(source, name="k", backend="sim")[1, 4](np.zeros(4))
