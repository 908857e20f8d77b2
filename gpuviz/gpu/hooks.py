"""The recording hooks of the GPU backend, as numba device functions.

Packing (what the overhead bars depend on):
- per warp, 12 bytes: start time (uint64 ns, %globaltimer) and SM (uint32, %smid), written by the
  warp's first lane when the kernel starts; lanes of a warp start together.
- per thread, 4 bytes: how long the thread ran (uint32 ns), written when it returns.
- per access, 16 bytes in four uint32/float32 columns: thread id, element index, value (as
  float32), and line (15 bits) | barrier epoch (9 bits) | array id (6 bits) | kind (2 bits).
  Slots are reserved once per warp with one atomic (lanes take consecutive slots), so a warp's
  events land side by side and the writes coalesce.
"""

from __future__ import annotations

from gpuviz.gpu.compat import import_numba_cuda, numba_jit

# Positions in the thread context tuple `_t` that _gv_begin returns.
GID, T0, EPOCH, LOG_GID, LOG_INDEX, LOG_VALUE, LOG_META, COUNTER, CAP = range(9)
LINE_SHIFT, EPOCH_SHIFT, ARRAY_SHIFT = 17, 8, 2
MAX_LINE, MAX_EPOCH = (1 << 15) - 1, (1 << 9) - 1

ATOMIC_RESULTS = {
    "add": "old + v0", "sub": "old - v0", "and_": "old & v0", "or_": "old | v0", "xor": "old ^ v0",
    "max": "max(old, v0)", "min": "min(old, v0)", "nanmax": "max(old, v0)", "nanmin": "min(old, v0)",
    "inc": "0 if old >= v0 else old + 1", "dec": "v0 if (old == 0 or old > v0) else old - 1",
    "exch": "v0", "cas": "v1 if old == v0 else old",
}  # fmt: skip

_CORE = """
def _gv_reserve(counter):
    mask = _gv_cuda.activemask()
    lane = _gv_cuda.laneid
    low = mask & (~mask + _gv_uint32(1))
    leader = _gv_cuda.popc(low - _gv_uint32(1))
    base = _gv_int64(0)
    if lane == leader:
        base = _gv_cuda.atomic.add(counter, 0, _gv_int64(_gv_cuda.popc(mask)))
    base = _gv_cuda.shfl_sync(mask, base, leader)
    below = mask & ((_gv_uint32(1) << lane) - _gv_uint32(1))
    return base + _gv_int64(_gv_cuda.popc(below))

def _gv_reserve_simulated(counter):
    return _gv_cuda.atomic.add(counter, 0, 1)

def _gv_record(t, aid, flat, kind, line, value):
    slot = _gv_reserve(t[7])
    if slot < t[8]:
        t[3][slot] = _gv_uint32(t[0])
        t[4][slot] = _gv_uint32(flat)
        t[5][slot] = _gv_float32(value)
        epoch = min(t[2][0], 511)
        t[6][slot] = _gv_uint32((min(line, 32767) << 17) | (epoch << 8) | (aid << 2) | kind)

def _gv_begin(ws, wsm, ep, lg, li, lv, lm, cnt, cap):
    bdx = _gv_cuda.blockDim.x
    bdy = _gv_cuda.blockDim.y
    per_block = bdx * bdy * _gv_cuda.blockDim.z
    thread = _gv_cuda.threadIdx.x + _gv_cuda.threadIdx.y * bdx + _gv_cuda.threadIdx.z * bdx * bdy
    gdx = _gv_cuda.gridDim.x
    block = _gv_cuda.blockIdx.x + _gv_cuda.blockIdx.y * gdx + _gv_cuda.blockIdx.z * gdx * _gv_cuda.gridDim.y
    gid = _gv_int64(block) * per_block + thread
    t0 = _gv_globaltimer()
    if thread % 32 == 0:
        warp = _gv_int64(block) * ((per_block + 31) // 32) + thread // 32
        ws[warp] = t0
        wsm[warp] = _gv_smid()
    return (gid, t0, ep, lg, li, lv, lm, cnt, cap)

def _gv_end(t, dur):
    elapsed = _gv_globaltimer() - t[1]
    dur[t[0]] = _gv_uint32(min(elapsed, 4294967295))

def _gv_epoch(t):
    t[2][0] += 1

def _gv_bar(t, value):
    t[2][0] += 1
    return value
"""

_INDEX_NAMES = ["i0", "i1", "i2"]
_FLAT = {1: "(i0 if i0 >= 0 else i0 + arr.shape[0])", 2: "i0 * arr.shape[1] + i1",
         3: "(i0 * arr.shape[1] + i1) * arr.shape[2] + i2"}  # fmt: skip


def _access_source(dims: int) -> str:
    idx = ", ".join(_INDEX_NAMES[:dims])
    flat = _FLAT[dims]
    return f"""
def _gv_ld{dims}(t, aid, arr, {idx}, line):
    v = arr[{idx}]
    if aid >= 0:
        _gv_record(t, aid, {flat}, 0, line, v)
    return v

def _gv_st{dims}(t, aid, arr, {idx}, value, line):
    arr[{idx}] = value
    if aid >= 0:
        _gv_record(t, aid, {flat}, 1, line, value)
"""


def _atomic_source(op: str, dims: int) -> str:
    idx = ", ".join(_INDEX_NAMES[:dims])
    where = idx if dims == 1 else f"({idx})"
    operands = "v0, v1" if op == "cas" else "v0"
    return f"""
def _gv_at_{op}{dims}(t, aid, arr, {idx}, {operands}, line):
    old = _gv_cuda.atomic.{op}(arr, {where}, {operands})
    if aid >= 0:
        _gv_record(t, aid, {_FLAT[dims]}, 2, line, {ATOMIC_RESULTS[op]})
    return old
"""


def hook_source() -> str:
    parts = [_CORE] + [_access_source(d) for d in (1, 2, 3)]
    parts += [_atomic_source(op, d) for op in ATOMIC_RESULTS for d in (1, 2, 3)]
    return "\n".join(parts)


def make_hooks() -> dict:
    """The hook functions as numba device functions, in one namespace that the kernel joins."""
    cuda = import_numba_cuda()
    import numba

    from gpuviz.gpu import intrinsics

    namespace = {
        "_gv_cuda": cuda,
        "_gv_uint32": numba.uint32,
        "_gv_int64": numba.int64,
        "_gv_int32": numba.int32,
        "_gv_float32": numba.float32,
        "_gv_smid": intrinsics.smid(),
        "_gv_globaltimer": intrinsics.globaltimer(),
    }
    before = set(namespace)
    exec(compile(hook_source(), "<gpuviz-gpu-hooks>", "exec"), namespace)
    if intrinsics.simulated():  # numba's simulator has no warp intrinsics
        namespace["_gv_reserve"] = namespace["_gv_reserve_simulated"]
    for name in set(namespace) - before - {"__builtins__"}:
        namespace[name] = numba_jit()(device=True)(namespace[name])
    return namespace
