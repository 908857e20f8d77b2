"""Library device functions a kernel links (nvmath-python's device matmul, CCCL's block primitives) run on
the simulator as gpuviz's models: their results match NumPy on random shapes on both engines, their
accesses are recorded at the call's line, the trace says they were models, and a linked function the
simulator has no model of is refused in one line naming it. None of this needs the real packages."""

import numpy as np
import pytest

import gpuviz
from gpuviz.cli import main
from gpuviz.core.errors import GpuvizError, KernelSourceError
from gpuviz.core.trace.columns import READ, WRITE

SEEDS = range(6)
ENGINES = ["vector", "reference"]


def _run(source: str, grid: int, block: int, args: tuple, engine: str):
    return gpuviz.trace(source, name="k", backend="sim", engine=engine)[grid, block](*args)


def _operand(rng, rows: int, cols: int, order: str, two_dims: bool):
    """A random matrix and its storage as cuBLASDx reads it (column- or row-major, default leading
    dimension), flat or as the 2-D array whose rows are the matrix's columns (or rows)."""
    matrix = rng.integers(-4, 5, (rows, cols)).astype(np.float64)
    stored = matrix.T if order == "col_major" else matrix
    return matrix, np.ascontiguousarray(stored if two_dims else stored.ravel())


def _shape(array: np.ndarray) -> str:
    return repr(tuple(array.shape))


def _matmul_source(m, n, k, arrangement, block, a, b, c) -> str:
    return f"""
import numpy as np
from numba import cuda, float64
from nvmath.device import Matmul

MM = Matmul(size=({m}, {n}, {k}), precision=np.float64, data_type="real", arrangement={arrangement!r},
            block_size={block})


@cuda.jit(device=True)
def copy(src, dst):
    for e in range(cuda.threadIdx.x, src.size, cuda.blockDim.x):
        if dst.ndim == 1:
            dst[e] = src[e]
        else:
            dst[e // dst.shape[1], e % dst.shape[1]] = src[e]


@cuda.jit
def k(alpha, beta, a, b, c, out):
    sa = cuda.shared.array({_shape(a)}, float64)
    sb = cuda.shared.array({_shape(b)}, float64)
    sc = cuda.shared.array({_shape(c)}, float64)
    copy(a, sa)
    copy(b, sb)
    copy(c, sc)
    cuda.syncthreads()
    MM.execute(alpha, sa, sb, beta, sc)
    cuda.syncthreads()
    for e in range(cuda.threadIdx.x, out.size, cuda.blockDim.x):
        if sc.ndim == 1:
            out[e] = sc[e]
        else:
            out[e] = sc[e // sc.shape[1], e % sc.shape[1]]
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_modelled_matmul_matches_numpy_on_random_shapes(seed, engine):
    rng = np.random.default_rng(seed)
    m, n, k = (int(v) for v in rng.integers(1, 10, 3))
    arrangement = tuple(str(rng.choice(["col_major", "row_major"])) for _ in range(3))
    two_dims = [bool(rng.integers(2)) for _ in range(3)]
    block = int(rng.choice([16, 32, 64, 96]))
    shapes = ((m, k), (k, n), (m, n))
    (ma, a), (mb, b), (mc, c) = (_operand(rng, rows, cols, order, flat)
                                 for (rows, cols), order, flat in zip(shapes, arrangement, two_dims))  # fmt: skip
    alpha, beta = float(rng.integers(-3, 4)), float(rng.choice([0.0, 1.0, -2.0]))
    out = np.zeros(c.size)
    source = _matmul_source(m, n, k, arrangement, block, a, b, c)
    trace = _run(source, 2, block, (alpha, beta, a.ravel(), b.ravel(), c.ravel(), out), engine)
    expected = alpha * ma @ mb + beta * mc
    stored = expected.T if arrangement[2] == "col_major" else expected
    np.testing.assert_allclose(out, stored.ravel())
    call_line = source.splitlines().index("    MM.execute(alpha, sa, sb, beta, sc)") + 1
    at_call = trace.accesses["line"] == call_line
    reads = at_call & (trace.accesses["kind"] == READ)
    writes = at_call & (trace.accesses["kind"] == WRITE)
    blocks = 2
    assert writes.sum() == blocks * m * n  # each element of C written once per block, at the user's line
    assert reads.sum() == blocks * (2 * m * n * k + (m * n if beta else 0))  # C is read only when beta != 0
    assert [call["line"] for call in trace.meta["modelled"]] == [call_line]


def _reduce_source(threads: int, items: int, dtype: str, op: str, valid: int | None) -> str:
    binary = "" if op == "sum" else "def larger(a, b):\n    return a if a > b else b\n\n\n"
    make = f"coop.block.sum({dtype}, {threads}, {items})" if op == "sum" else \
        f"coop.block.reduce({dtype}, {threads}, larger, {items})"  # fmt: skip
    take = f"values[base + t * {items} + q]"
    if items == 1:
        given = "values[base + t]"
        call = f"reduce_block({given}, {valid})" if valid is not None else f"reduce_block({given})"
        gather = ""
    else:
        gather = (f"    mine = cuda.local.array({items}, {dtype})\n"
                  f"    for q in range({items}):\n        mine[q] = {take}\n")
        call = "reduce_block(mine)"
    return f"""
import cuda.cccl.cooperative.experimental as coop
from numba import cuda, int32, float64

{binary}reduce_block = {make}


@cuda.jit(link=reduce_block.files)
def k(values, out):
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * {threads * items}
{gather}    result = {call}
    if t == 0:
        out[cuda.blockIdx.x] = result
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_modelled_block_reduce_matches_numpy_on_random_shapes(seed, engine):
    rng = np.random.default_rng(100 + seed)
    threads = int(rng.integers(1, 200))
    items = int(rng.choice([1, 1, 2, 3]))
    dtype = str(rng.choice(["int32", "float64"]))
    op = str(rng.choice(["sum", "max"]))
    valid = int(rng.integers(1, threads + 1)) if items == 1 and rng.integers(2) else None
    blocks = 3
    values = rng.integers(-1000, 1000, blocks * threads * items).astype(dtype)
    out = np.zeros(blocks, dtype)
    _run(_reduce_source(threads, items, dtype, op, valid), blocks, threads, (values, out), engine)
    per_block = values.reshape(blocks, threads * items)[:, : valid if valid is not None else threads * items]
    expected = per_block.sum(axis=1) if op == "sum" else per_block.max(axis=1)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("items", [1, 3])
def test_the_modelled_block_scans_match_numpy(items, exclusive):
    threads, blocks = 45, 2
    name = "exclusive_sum" if exclusive else "inclusive_sum"
    if items == 1:
        body = "    out[base + t] = scan_block(values[base + t])\n"
    else:
        body = (f"    mine = cuda.local.array({items}, int32)\n    done = cuda.local.array({items}, int32)\n"
                f"    for q in range({items}):\n        mine[q] = values[base + t * {items} + q]\n"
                f"    scan_block(mine, done)\n"
                f"    for q in range({items}):\n        out[base + t * {items} + q] = done[q]\n")  # fmt: skip
    source = f"""
import cuda.cccl.cooperative.experimental as coop
from numba import cuda, int32

scan_block = coop.block.{name}(int32, {threads}, {items})


@cuda.jit(link=scan_block.files)
def k(values, out):
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * {threads * items}
{body}"""
    values = np.random.default_rng(7).integers(-50, 50, blocks * threads * items).astype(np.int32)
    out = np.zeros_like(values)
    _run(source, blocks, threads, (values, out), "vector")
    inclusive = np.cumsum(values.reshape(blocks, -1), axis=1)
    expected = inclusive - values.reshape(blocks, -1) if exclusive else inclusive
    np.testing.assert_array_equal(out, expected.ravel())


@pytest.mark.parametrize("algorithm", ["direct", "striped"])
def test_the_modelled_block_load_and_store_place_items_as_cub_does(algorithm):
    threads, items = 40, 3
    source = f"""
import cuda.cccl.cooperative.experimental as coop
from numba import cuda, float32

load = coop.block.load(float32, {threads}, {items}, "{algorithm}")
store = coop.block.store(float32, {threads}, {items}, "{algorithm}")


@cuda.jit(link=load.files + store.files)
def k(values, mine, out):
    t = cuda.threadIdx.x
    held = cuda.local.array({items}, float32)
    load(values, held)
    for q in range({items}):
        mine[t * {items} + q] = held[q]
    store(out, held)
"""
    values = np.arange(threads * items, dtype=np.float32)
    mine, out = np.zeros_like(values), np.zeros_like(values)
    _run(source, 1, threads, (values, mine, out), "vector")
    np.testing.assert_array_equal(out, values)  # a store undoes its load
    held = values.reshape(items, threads).T if algorithm == "striped" else values.reshape(threads, items)
    np.testing.assert_array_equal(mine, held.ravel())


def test_a_device_function_linked_from_outside_is_refused_in_one_line_naming_it():
    source = """
from numba import cuda

scale = cuda.declare_device("mylib_scale", "float32(float32)", link="mylib.cu")


@cuda.jit(link=["mylib.cu"])
def k(a):
    i = cuda.grid(1)
    a[i] = scale(a[i])
"""
    with pytest.raises(KernelSourceError) as refused:
        _run(source, 1, 4, (np.ones(4, np.float32),), "vector")
    message = str(refused.value)
    assert "\n" not in message and "mylib_scale" in message and "line 10" in message and "--backend gpu" in message


@pytest.mark.parametrize("script, named", [
    ("import cuda.cccl.cooperative.experimental as coop\nsort = coop.block.radix_sort_keys('int32', 64, 2)\n",
     "cuda.cccl.cooperative.experimental.block.radix_sort_keys"),
    ("from nvmath.device import FFT\n", "nvmath.device.FFT"),
    ("import numpy as np\nfrom nvmath.device import Matmul\n"
     "MM = Matmul((4, 4, 4), np.float32, 'complex', arrangement=('col_major',) * 3)\n",
     "data_type='complex'"),
])  # fmt: skip
def test_library_calls_without_a_model_are_refused_in_one_line_naming_them(tmp_path, capsys, script, named):
    path = tmp_path / "s.py"
    path.write_text(script)
    assert main(["run", str(path), "--backend", "sim", "--out", str(tmp_path)]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and named in err[0] and "not modelled" in err[0], err


def test_the_articles_spelling_runs_too_and_its_call_is_labelled_a_model(tmp_path):
    """nvmath-python before 0.7, as the GTC'25 article writes it: MM = matmul(...), link=MM.files, MM(...)."""
    source = """
import numpy as np
from numba import cuda, float32
from nvmath.device import matmul

MM = matmul(size=(8, 1, 4), precision=np.float32, data_type="real", transpose_mode=("non_transposed",) * 2,
            block_size=32, execution="Block", compiler="numba")


@cuda.jit(link=MM.files)
def k(a, out):
    smem_a = cuda.shared.array((4, 8), float32)
    smem_b = cuda.shared.array(4, float32)
    smem_c = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    smem_a[t // 8, t % 8] = a[t % 8, t // 8]
    if t < 4:
        smem_b[t] = 1.0
    cuda.syncthreads()
    MM(1., smem_a, smem_b, 0., smem_c)
    cuda.syncthreads()
    if t < 8:
        out[t] = smem_c[t]
"""
    a = np.arange(32, dtype=np.float32).reshape(8, 4)
    out = np.zeros(8, np.float32)
    trace = _run(source, 1, 32, (a, out), "vector")
    np.testing.assert_allclose(out, a.sum(axis=1))
    (call,) = trace.meta["modelled"]
    assert call["call"] == "MM" and "matmul" in call["model"]
    assert call["line"] == source.splitlines().index("    MM(1., smem_a, smem_b, 0., smem_c)") + 1


def test_a_library_call_outside_a_kernel_says_where_it_belongs():
    from gpuviz.program.shims import cccl_cooperative

    with pytest.raises(GpuvizError, match="call it from inside a kernel"):
        cccl_cooperative.block.sum("float32", 32)(1.0)


def test_the_stand_ins_win_over_a_real_library_loaded_before_and_it_is_put_back(tmp_path, monkeypatch):
    """A process that ran the real CCCL on a GPU has `cuda.cccl` as an attribute of the `cuda` package,
    which `import cuda.cccl... as coop` reads first: the simulator's run still gets its stand-in."""
    import sys
    import types

    real = types.ModuleType("cuda")
    real.__path__ = []
    real.cccl = types.ModuleType("cuda.cccl")  # stands for the real library, loaded earlier
    real.cccl.cooperative = types.ModuleType("cuda.cccl.cooperative")
    real.cccl.cooperative.experimental = types.ModuleType("cuda.cccl.cooperative.experimental")
    monkeypatch.setitem(sys.modules, "cuda", real)
    monkeypatch.setitem(sys.modules, "cuda.cccl", real.cccl)
    path = tmp_path / "s.py"
    path.write_text("import cuda.cccl.cooperative.experimental as coop\nassert coop.__name__.startswith('gpuviz.')\n")
    assert main(["run", str(path), "--backend", "sim", "--out", str(tmp_path)]) == 0
    assert sys.modules["cuda"].cccl is real.cccl and sys.modules["cuda.cccl"] is real.cccl
