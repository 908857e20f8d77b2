"""The cases of the intrinsics' differential test: one small kernel per intrinsic and the inputs it runs on.

bench/gpu_fidelity.py compiles each kernel with plain numba-cuda and records its outputs on a GPU into
tests/data/gpu_intrinsics.json; tests/test_intrinsics_on_gpu.py runs the same kernels on both engines of
the simulator and compares. One kernel per intrinsic and operand type, so that numba refusing one (a
TypingError) hides no other. Warp kernels run one block of 10, 32, 48 or 70 threads (a partial warp
alone, a full one, one and a half, two and a bit) whose lanes with t % 7 == 3 return first.
"""

from __future__ import annotations

import numpy as np

DTYPES = ("int32", "uint32", "int64", "uint64")
BLOCKS = (10, 32, 48, 70)
FULL = "0xFFFFFFFF"

# intrinsic: the statements after `x = v[t]` (`lane` is t % 32, `same` a few repeated values)
WARP_BODIES = {
    "popc": "out[t, 0] = cuda.popc(x)",
    "brev": "out[t, 0] = cuda.brev(x)",
    "clz": "out[t, 0] = cuda.clz(x)",
    "ffs": "out[t, 0] = cuda.ffs(x)",
    "shfl_sync": f"out[t, 0] = cuda.shfl_sync({FULL}, x, (lane * 7 + 3) % 37)",
    "shfl_up_sync": f"out[t, 0] = cuda.shfl_up_sync({FULL}, x, 3)",
    "shfl_down_sync": f"out[t, 0] = cuda.shfl_down_sync({FULL}, x, 5)",
    "shfl_xor_sync": f"out[t, 0] = cuda.shfl_xor_sync({FULL}, x, 6)",
    # votes: a bool predicate in column 0, an integer one (numba tests it against zero) in column 1
    "ballot_sync": (
        f"out[t, 0] = cuda.ballot_sync({FULL}, x % 3 == 0)\n    out[t, 1] = cuda.ballot_sync({FULL}, same[t])"
    ),
    "all_sync": f"out[t, 0] = cuda.all_sync({FULL}, x % 2 == 0)\n    out[t, 1] = cuda.all_sync({FULL}, same[t])",
    "any_sync": f"out[t, 0] = cuda.any_sync({FULL}, x % 5 == 0)\n    out[t, 1] = cuda.any_sync({FULL}, same[t])",
    "eq_sync": f"out[t, 0] = cuda.eq_sync({FULL}, x % 2 == 0)\n    out[t, 1] = cuda.eq_sync({FULL}, same[t])",
    "match_any_sync": f"out[t, 0] = cuda.match_any_sync({FULL}, same[t])",
    "match_all_sync": f"m, ok = cuda.match_all_sync({FULL}, same[t])\n    out[t, 0] = m\n    out[t, 1] = ok",
    "activemask": "out[t, 0] = cuda.activemask()\n    if x % 3 == 0:\n        out[t, 1] = cuda.activemask()",
    "lanemask_lt": "out[t, 0] = cuda.lanemask_lt()",
}
BIT_INTRINSICS = ("popc", "brev", "clz", "ffs")  # run on special values, every lane
TYPE_FREE = ("activemask", "lanemask_lt")  # the operand's type does not matter: int32 only

# block votes: grid of 3 blocks, no lane returns (a barrier needs every thread); predicate an integer or a bool
BLOCK_BODIES = {
    "syncthreads_count": "out[i, 0] = cuda.syncthreads_count(same[i])",
    "syncthreads_and": "out[i, 0] = cuda.syncthreads_and(same[i])",
    "syncthreads_or": "out[i, 0] = cuda.syncthreads_or(same[i])",
    "syncthreads_count_bool": "out[i, 0] = cuda.syncthreads_count(x % 3 == 0)",
    "syncthreads_and_bool": "out[i, 0] = cuda.syncthreads_and(x % 2 == 0)",
    "syncthreads_or_bool": "out[i, 0] = cuda.syncthreads_or(x % 5 == 0)",
}
BOOL_PREDICATES = tuple(name for name in BLOCK_BODIES if name.endswith("_bool"))  # int32 only
BLOCK_GRID = 3

WARP_FRAME = """from numba import cuda


@cuda.jit
def k(v, same, quit, out):
    t = cuda.threadIdx.x
    if quit[t]:
        return
    lane = t % 32
    x = v[t]
    {body}
"""

BLOCK_FRAME = """from numba import cuda


@cuda.jit
def k(v, same, quit, out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    x = v[i]
    {body}
"""


def source(intrinsic: str) -> str:
    if intrinsic in WARP_BODIES:
        return WARP_FRAME.format(body=WARP_BODIES[intrinsic])
    return BLOCK_FRAME.format(body=BLOCK_BODIES[intrinsic])


def output_dtype(intrinsic: str, dtype: str) -> str:
    """An array that holds the result as numba types it: the operand's type for shuffles, popc and
    clz, an unsigned type as wide as the operand for brev, int64 for masks, votes and counts."""
    if intrinsic.startswith("shfl") or intrinsic in ("popc", "clz"):
        return dtype
    if intrinsic == "brev":
        return "uint" + dtype.removeprefix("u").removeprefix("int")
    return "int64"


def cases() -> list[tuple[str, str, str]]:
    """(intrinsic, dtype, input key) for every launch the test compares."""
    out = []
    for intrinsic in (*WARP_BODIES, *BLOCK_BODIES):
        dtypes = ("int32",) if intrinsic in TYPE_FREE + BOOL_PREDICATES else DTYPES
        for dtype in dtypes:
            if intrinsic in BIT_INTRINSICS:
                out.append((intrinsic, dtype, f"{dtype}/bits"))
            else:
                kind = "block" if intrinsic in BLOCK_BODIES else "warp"
                out += [(intrinsic, dtype, f"{dtype}/{kind}{block}") for block in BLOCKS]
    return out


def special_values(dtype: str) -> np.ndarray:
    """Bit patterns that catch a wrong width (0xF0, the sign bit, the extremes) and random ones."""
    info = np.iinfo(dtype)
    fixed = [0, 1, 2, 0xF0, 0x80, 0x7FFFFFFF, info.max, info.min, info.max - 1, 1 << (info.bits - 1)]
    if info.kind == "i":
        fixed += [-1, -2, -0xF0]
    drawn = np.random.default_rng(7).integers(info.min, info.max, 19, dtype=dtype, endpoint=True)
    patterns = np.array([x & ((1 << info.bits) - 1) for x in fixed], f"uint{info.bits}")  # wrapped to the width
    return np.concatenate([patterns.view(dtype), drawn])


def _repeated_values(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Values that repeat within a warp (for match and the integer predicates): warp 0 agrees on 5, a
    partial last warp on the type's maximum, the others draw from 0, 5, 7, max, max - 1 (equal as
    floats for 64-bit types) and, for 64-bit types, 2^32 (zero in its low 32 bits)."""
    info = np.iinfo(dtype)
    pool = [0, 5, 7, int(info.max), int(info.max) - 1] + ([1 << 32] if info.bits == 64 else [])
    same = np.array([pool[k] for k in rng.integers(0, len(pool), n)], dtype)
    same[: min(n, 32)] = 5
    if n > 32 and n % 32:
        same[n - n % 32 :] = info.max
    return same


def inputs(key: str) -> dict[str, np.ndarray]:
    """The arrays v, same and quit of one input key (`int32/warp48`, `uint64/bits`, `int64/block10`)."""
    dtype, kind = key.split("/")
    if kind == "bits":
        v = special_values(dtype)
        return {"v": v, "same": np.zeros(v.size, dtype), "quit": np.zeros(v.size, np.int8)}
    block = int(kind.lstrip("warpblock"))
    n = block * (BLOCK_GRID if kind.startswith("block") else 1)
    rng = np.random.default_rng(block + 1000 * DTYPES.index(dtype))
    info = np.iinfo(dtype)
    v = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), n, dtype=dtype)
    v[: min(n, 32)] &= ~np.array(1, dtype)  # warp 0 (and block 0's first warp): every value even
    if kind.startswith("block"):
        v[:block] &= ~np.array(1, dtype)  # block 0: every value even (syncthreads_and)
        return {"v": v, "same": _repeated_values(dtype, n, rng), "quit": np.zeros(n, np.int8)}
    quit = (np.arange(n) % 7 == 3).astype(np.int8)
    return {"v": v, "same": _repeated_values(dtype, n, rng), "quit": quit}


def launch_shape(key: str) -> tuple[int, int]:
    """(grid, block) of an input key."""
    kind = key.split("/")[1]
    if kind == "bits":
        return 1, len(special_values(key.split("/")[0]))
    block = int(kind.lstrip("warpblock"))
    return (BLOCK_GRID if kind.startswith("block") else 1), block


def output(intrinsic: str, dtype: str, key: str) -> np.ndarray:
    """A zeroed output array for one case: two columns per thread."""
    grid, block = launch_shape(key)
    return np.zeros((grid * block, 2), output_dtype(intrinsic, dtype))
