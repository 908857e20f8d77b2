"""numba.cuda's integer and warp intrinsics on both engines, against their semantics under numba-cuda 0.30
written out here in plain Python: bit intrinsics at the operand's width (brev at 32 bits unless the
operand is a uint64), shuffles whose source lane is past the warp's ends returning the caller's own
value and from a lane that is not there 0 (as an NVIDIA H200 did), votes on their predicates' truth,
matches after numba's conversion (a uint64 compared as a float64), masks limited to the lanes that
take part, block votes on an int32 predicate; int32, uint32, int64 and uint64, partial warps and lanes
that exited first. What numba refuses (a uint32 shuffled, a bool predicate of syncthreads_count) is
refused. No launch may leave its engine. tests/test_intrinsics_on_gpu.py compares with a GPU's outputs."""

import numpy as np
import pytest

import gpuviz

ENGINES = ("vector", "reference")
DTYPES = ("int32", "uint32", "int64", "uint64")
BLOCKS = (10, 32, 48, 70)  # a partial warp alone, a full one, one and a half, two and a bit


def launch(source, engine, grid, block, *args):
    trace = gpuviz.trace(source, name="k", backend="sim", engine=engine)[grid, block](*args)
    assert trace.meta["engine"] == engine, trace.meta["engine_note"]
    assert trace.error_count == 0
    return trace


def special_values(dtype: str) -> np.ndarray:
    info = np.iinfo(dtype)
    fixed = [0, 1, 2, 0xF0, 0x80, 0x7FFFFFFF, info.max, info.min, info.max - 1, 1 << (info.bits - 1)]
    if info.kind == "i":
        fixed += [-1, -2, -0xF0]
    rng = np.random.default_rng(7)
    drawn = rng.integers(info.min, info.max, 19, dtype=dtype, endpoint=True)
    patterns = np.array([x & ((1 << info.bits) - 1) for x in fixed], f"uint{info.bits}")  # wrapped to the width
    return np.concatenate([patterns.view(dtype), drawn])


# ---- bit intrinsics ------------------------------------------------------------------------------
BITS_SOURCE = """
from numba import cuda
@cuda.jit
def k(a, popc, brev, clz, ffs):
    i = cuda.grid(1)
    if i < a.size:
        popc[i] = cuda.popc(a[i])
        brev[i] = cuda.brev(a[i])
        clz[i] = cuda.clz(a[i])
        ffs[i] = cuda.ffs(a[i])
"""


def expected_bits(value: int, width: int, unsigned: bool) -> tuple[int, int, int, int]:
    v = value & ((1 << width) - 1)  # the bit pattern at the operand's width
    rev_width = 64 if (width == 64 and unsigned) else 32  # numba's brev: uint64 or uint32
    reversed_bits = int(f"{v & ((1 << rev_width) - 1):0{rev_width}b}"[::-1], 2)
    return bin(v).count("1"), reversed_bits, width - v.bit_length(), (v & -v).bit_length()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_bit_intrinsics_work_at_the_operands_width(engine, dtype):
    a = special_values(dtype)
    outs = [np.zeros(a.size, np.int64), np.zeros(a.size, np.uint64), np.zeros(a.size, np.int64),
            np.zeros(a.size, np.int64)]  # fmt: skip
    launch(BITS_SOURCE, engine, 1, 64, a, *outs)
    width = a.dtype.itemsize * 8
    for k, value in enumerate(a.tolist()):
        expected = expected_bits(value, width, dtype.startswith("u"))
        assert [int(o[k]) for o in outs] == list(expected), (dtype, hex(value))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_issues_values_on_uint32(engine):
    a = np.array([0xF0, 1], np.uint32)
    outs = [np.zeros(2, np.int64), np.zeros(2, np.uint64), np.zeros(2, np.int64), np.zeros(2, np.int64)]
    launch(BITS_SOURCE, engine, 1, 2, a, *outs)
    assert outs[1].tolist() == [0x0F000000, 0x80000000] and outs[2].tolist() == [24, 31]


# ---- warp collectives --------------------------------------------------------------------------
SHUFFLE_SOURCE = """
from numba import cuda
@cuda.jit
def k(v, quit, shfl, up, down, xor):
    t = cuda.threadIdx.x
    if quit[t]:
        return
    lane = t % 32
    x = v[t]
    shfl[t] = cuda.shfl_sync(0xFFFFFFFF, x, (lane * 7 + 3) % 37)
    up[t] = cuda.shfl_up_sync(0xFFFFFFFF, x, 3)
    down[t] = cuda.shfl_down_sync(0xFFFFFFFF, x, 5)
    xor[t] = cuda.shfl_xor_sync(0xFFFFFFFF, x, 6)
"""

VOTE_SOURCE = """
from numba import cuda
@cuda.jit
def k(v, same, quit, ballot, votes, match_any, match_all, masks):
    t = cuda.threadIdx.x
    if quit[t]:
        return
    x = v[t]
    ballot[t] = cuda.ballot_sync(0xFFFFFFFF, x % 3 == 0)
    votes[t, 0] = cuda.all_sync(0xFFFFFFFF, x % 2 == 0)
    votes[t, 1] = cuda.any_sync(0xFFFFFFFF, x % 5 == 0)
    votes[t, 2] = cuda.eq_sync(0xFFFFFFFF, same[t])
    match_any[t] = cuda.match_any_sync(0xFFFFFFFF, same[t])
    m, ok = cuda.match_all_sync(0xFFFFFFFF, same[t])
    match_all[t, 0] = m
    match_all[t, 1] = ok
    masks[t, 0] = cuda.activemask()
    masks[t, 1] = cuda.lanemask_lt()
"""


def as_int32(bits: int) -> int:
    return int(np.array(bits & 0xFFFFFFFF, np.uint32).view(np.int32))


def warps(n: int, quit: np.ndarray):
    """(first thread, lanes that take part) of each warp of a block of n threads."""
    for base in range(0, n, 32):
        yield base, [t - base for t in range(base, min(n, base + 32)) if not quit[t]]


def expected_shuffles(v: np.ndarray, quit: np.ndarray) -> dict[str, np.ndarray]:
    out = {name: np.zeros(v.size, v.dtype) for name in ("shfl", "up", "down", "xor")}
    for base, here in warps(v.size, quit):
        value = {lane: v[base + lane] for lane in here}

        def source(lane, src, value=value):
            if not 0 <= src < 32:
                return value[lane]  # past the warp's ends: the caller's own value
            return value.get(src, 0)  # a lane not there (exited, past a partial warp): 0

        for lane in here:
            t = base + lane
            out["shfl"][t] = source(lane, ((lane * 7 + 3) % 37) % 32)
            out["up"][t] = source(lane, lane - 3)
            out["down"][t] = source(lane, lane + 5)
            out["xor"][t] = source(lane, lane ^ 6)
    return out


def match_key(value, dtype: str):
    return float(value) if dtype == "uint64" else int(value)  # numba converts a uint64 to float64 to match it


def expected_votes(v: np.ndarray, same: np.ndarray, quit: np.ndarray) -> dict[str, np.ndarray]:
    n = v.size
    out = dict(ballot=np.zeros(n, np.int32), votes=np.zeros((n, 3), np.int32), match_any=np.zeros(n, np.int32),
               match_all=np.zeros((n, 2), np.int32), masks=np.zeros((n, 2), np.int64))  # fmt: skip
    values, keys = v.tolist(), [match_key(x, str(same.dtype)) for x in same.tolist()]
    for base, here in warps(n, quit):
        value, key = {lane: values[base + lane] for lane in here}, {lane: keys[base + lane] for lane in here}
        active = sum(1 << lane for lane in here)
        one_key = len(set(key.values())) == 1
        one_truth = len({k != 0 for k in key.values()}) == 1  # eq_sync: the predicates' truth
        for lane in here:
            t = base + lane
            out["ballot"][t] = as_int32(sum(1 << o for o in here if value[o] % 3 == 0))
            out["votes"][t] = [all(value[o] % 2 == 0 for o in here), any(value[o] % 5 == 0 for o in here), one_truth]
            out["match_any"][t] = as_int32(sum(1 << o for o in here if key[o] == key[lane]))
            out["match_all"][t] = [as_int32(active) if one_key else 0, one_key]
            out["masks"][t] = [active, (1 << lane) - 1]
    return out


def warp_inputs(dtype: str, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(block)
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else np.iinfo(np.int32)
    v = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), block).astype(dtype)
    v[: min(block, 32)] = np.floor(v[: min(block, 32)] / 2) * 2  # warp 0: every value even (all_sync)
    kind = np.uint64 if dtype == "uint64" else np.int64
    same = np.where(np.arange(block) < 32, 5, np.arange(block) % 3).astype(kind)  # warp 0 agrees, the others not
    if block > 33:
        same[-2:] = [np.iinfo(kind).max, np.iinfo(kind).max - 1]  # equal as float64, not as integers
    quit = (np.arange(block) % 7 == 3).astype(np.int8)  # lanes that return before the collectives
    return v, same, quit


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", ("int32", "int64", "float32", "float64"))  # what numba shuffles
@pytest.mark.parametrize("block", BLOCKS)
def test_shuffles_follow_cuda_over_partial_warps_and_exited_lanes(engine, dtype, block):
    v, _, quit = warp_inputs(dtype, block)
    got = {name: np.zeros_like(e) for name, e in expected_shuffles(v, quit).items()}
    launch(SHUFFLE_SOURCE, engine, 1, block, v, quit, *got.values())
    for name, expected in expected_shuffles(v, quit).items():
        np.testing.assert_array_equal(got[name][quit == 0], expected[quit == 0], err_msg=f"{name} {dtype}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block", BLOCKS)
def test_votes_and_matches_follow_cuda_over_partial_warps_and_exited_lanes(engine, dtype, block):
    v, same, quit = warp_inputs(dtype, block)
    got = {name: np.zeros_like(e) for name, e in expected_votes(v, same, quit).items()}
    launch(VOTE_SOURCE, engine, 1, block, v, same, quit, *got.values())
    for name, expected in expected_votes(v, same, quit).items():
        np.testing.assert_array_equal(got[name][quit == 0], expected[quit == 0], err_msg=f"{name} {dtype}")


# ---- block votes -------------------------------------------------------------------------------
BARRIER_SOURCE = """
from numba import cuda
@cuda.jit
def k(v, out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    x = v[i]
    out[i, 0] = cuda.syncthreads_count(x)
    out[i, 1] = cuda.syncthreads_and(x)
    out[i, 2] = cuda.syncthreads_or(x)
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block", BLOCKS)
def test_block_votes_count_the_blocks_threads_on_an_int32_predicate(engine, dtype, block):
    v = (np.random.default_rng(block).integers(0, 3, 3 * block) * (1 << 30)).astype(dtype)  # 0, 2^30 or 2^31
    if np.dtype(dtype).itemsize == 8:
        v[block::3] = 1 << 32  # zero once numba converts it to int32: false
    v[:block] = np.where(v[:block] == 0, 7, v[:block])  # block 0: the low 32 bits never all zero
    out = np.zeros((3 * block, 3), np.int32)
    launch(BARRIER_SOURCE, engine, 3, block, v, out)
    for b in range(3):
        true = [x & 0xFFFFFFFF != 0 for x in v[b * block : (b + 1) * block].tolist()]
        assert (out[b * block : (b + 1) * block] == [sum(true), all(true), any(true)]).all(), (b, dtype)


# ---- what numba refuses ------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("call", "operand"), [("cuda.shfl_sync(0xFFFFFFFF, x, 0)", "uint32"),
                                               ("cuda.shfl_down_sync(0xFFFFFFFF, x, 1)", "uint64"),
                                               ("cuda.syncthreads_count(x > 0)", "int32"),
                                               ("cuda.any_sync(0xFFFFFFFF, x * 0.5)", "int32")])  # fmt: skip
def test_operands_numba_refuses_are_refused_with_their_line(engine, call, operand):
    source = f"from numba import cuda\n@cuda.jit\ndef k(v, out):\n    x = v[0]\n    out[0] = {call}\n"
    name = call.split("(")[0].removeprefix("cuda.")
    with pytest.raises(gpuviz.KernelError, match=f"line 5: numba-cuda's {name} "):
        gpuviz.trace(source, name="k", backend="sim", engine=engine)[1, 32](np.ones(1, operand), np.zeros(1))
