"""numba.cuda's integer and warp intrinsics on both engines, against their CUDA semantics written out here
in plain Python: bit intrinsics at the operand's width, shuffles whose source lane is out of range or
not there returning the caller's own value, masks limited to the lanes that take part; int32, uint32,
int64 and uint64, partial warps and lanes that exited first. No launch may leave its engine."""

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


def expected_bits(value: int, width: int) -> tuple[int, int, int, int]:
    v = value & ((1 << width) - 1)  # the bit pattern at the operand's width
    return (bin(v).count("1"), int(f"{v:0{width}b}"[::-1], 2), width - v.bit_length(), (v & -v).bit_length())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_bit_intrinsics_work_at_the_operands_width(engine, dtype):
    a = special_values(dtype)
    outs = [np.zeros(a.size, np.int64), np.zeros(a.size, np.uint64), np.zeros(a.size, np.int64),
            np.zeros(a.size, np.int64)]  # fmt: skip
    launch(BITS_SOURCE, engine, 1, 64, a, *outs)
    width = a.dtype.itemsize * 8
    for k, value in enumerate(a.tolist()):
        assert [int(o[k]) for o in outs] == list(expected_bits(value, width)), (dtype, hex(value))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_issues_values_on_uint32(engine):
    a = np.array([0xF0, 1], np.uint32)
    outs = [np.zeros(2, np.int64), np.zeros(2, np.uint64), np.zeros(2, np.int64), np.zeros(2, np.int64)]
    launch(BITS_SOURCE, engine, 1, 2, a, *outs)
    assert outs[1].tolist() == [0x0F000000, 0x80000000] and outs[2].tolist() == [24, 31]


# ---- warp collectives --------------------------------------------------------------------------
WARP_SOURCE = """
from numba import cuda
@cuda.jit
def k(v, same, quit, shfl, up, down, xor, ballot, votes, match_any, match_all, masks):
    t = cuda.threadIdx.x
    if quit[t]:
        return
    lane = t % 32
    x = v[t]
    shfl[t] = cuda.shfl_sync(0xFFFFFFFF, x, (lane * 7 + 3) % 37)
    up[t] = cuda.shfl_up_sync(0xFFFFFFFF, x, 3)
    down[t] = cuda.shfl_down_sync(0xFFFFFFFF, x, 5)
    xor[t] = cuda.shfl_xor_sync(0xFFFFFFFF, x, 6)
    ballot[t] = cuda.ballot_sync(0xFFFFFFFF, x % 3 == 0)
    votes[t, 0] = cuda.all_sync(0xFFFFFFFF, x % 2 == 0)
    votes[t, 1] = cuda.any_sync(0xFFFFFFFF, x % 5 == 0)
    votes[t, 2] = cuda.eq_sync(0xFFFFFFFF, same[t])
    match_any[t] = cuda.match_any_sync(0xFFFFFFFF, x % 4)
    m, ok = cuda.match_all_sync(0xFFFFFFFF, same[t])
    match_all[t, 0] = m
    match_all[t, 1] = ok
    masks[t, 0] = cuda.activemask()
    masks[t, 1] = cuda.lanemask_lt()
"""


def as_int32(bits: int) -> int:
    return int(np.array(bits & 0xFFFFFFFF, np.uint32).view(np.int32))


def expected_warps(v: np.ndarray, same: np.ndarray, quit: np.ndarray) -> dict[str, np.ndarray]:
    """Each intrinsic's CUDA semantics, warp by warp, over the lanes that did not return first."""
    n = v.size
    out = {name: np.zeros(n, v.dtype) for name in ("shfl", "up", "down", "xor")}
    out.update(ballot=np.zeros(n, np.int32), votes=np.zeros((n, 3), np.int32), match_any=np.zeros(n, np.int32),
               match_all=np.zeros((n, 2), np.int32), masks=np.zeros((n, 2), np.int64))  # fmt: skip
    values = v.tolist()
    for base in range(0, n, 32):
        here = [t - base for t in range(base, min(n, base + 32)) if not quit[t]]  # lanes that take part
        value = {lane: values[base + lane] for lane in here}

        def source(lane, src, value=value):
            return value[src] if 0 <= src < 32 and src in value else value[lane]

        active = sum(1 << lane for lane in here)
        every_same = len({int(same[base + lane]) for lane in here}) == 1
        for lane in here:
            t = base + lane
            out["shfl"][t] = source(lane, ((lane * 7 + 3) % 37) % 32)
            out["up"][t] = source(lane, lane - 3)
            out["down"][t] = source(lane, lane + 5)
            out["xor"][t] = source(lane, lane ^ 6)
            out["ballot"][t] = as_int32(sum(1 << o for o in here if value[o] % 3 == 0))
            out["votes"][t] = [all(value[o] % 2 == 0 for o in here), any(value[o] % 5 == 0 for o in here),
                               every_same]  # fmt: skip
            out["match_any"][t] = as_int32(sum(1 << o for o in here if value[o] % 4 == value[lane] % 4))
            out["match_all"][t] = [as_int32(active) if every_same else 0, every_same]
            out["masks"][t] = [active, (1 << lane) - 1]
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block", BLOCKS)
def test_warp_intrinsics_follow_cuda_over_partial_warps_and_exited_lanes(engine, dtype, block):
    rng = np.random.default_rng(block)
    info = np.iinfo(dtype)
    v = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), block, dtype=dtype)
    v[: min(block, 32)] = v[: min(block, 32)] & ~np.array(1, dtype)  # warp 0: every value even (all_sync)
    kind = np.uint64 if dtype == "uint64" else np.int64
    same = np.where(np.arange(block) < 32, 5, np.arange(block)).astype(kind)  # warp 0 agrees, the others not
    if block > 33:
        same[-2:] = [np.iinfo(kind).max, np.iinfo(kind).max - 1]  # equal as floats, not as integers
    quit = (np.arange(block) % 7 == 3).astype(np.int8)  # lanes that return before the collectives
    got = {name: np.zeros_like(e) for name, e in expected_warps(v, same, quit).items()}
    launch(WARP_SOURCE, engine, 1, block, v, same, quit, *got.values())
    for name, expected in expected_warps(v, same, quit).items():
        taking_part = quit == 0
        np.testing.assert_array_equal(got[name][taking_part], expected[taking_part], err_msg=f"{name} {dtype}")


# ---- block votes -------------------------------------------------------------------------------
BARRIER_SOURCE = """
from numba import cuda
@cuda.jit
def k(v, out):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    x = v[b * cuda.blockDim.x + t]
    i = b * cuda.blockDim.x + t
    out[i, 0] = cuda.syncthreads_count(x % 3 == 0)
    out[i, 1] = cuda.syncthreads_and(x % 2 == 0)
    out[i, 2] = cuda.syncthreads_or(x % 5 == 0)
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block", BLOCKS)
def test_block_votes_count_the_blocks_threads(engine, dtype, block):
    v = np.random.default_rng(block).integers(0, 1 << 20, 3 * block).astype(dtype)
    v[:block] &= ~np.array(1, dtype)  # block 0: every value even
    out = np.zeros((3 * block, 3), np.int32)
    launch(BARRIER_SOURCE, engine, 3, block, v, out)
    for b in range(3):
        mine = v[b * block : (b + 1) * block].tolist()
        row = [sum(x % 3 == 0 for x in mine), all(x % 2 == 0 for x in mine), any(x % 5 == 0 for x in mine)]
        assert (out[b * block : (b + 1) * block] == row).all(), (b, row)
