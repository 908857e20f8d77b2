"""The recording hooks of the GPU backend, as numba device functions.

Packing (what the overhead bars depend on; measured on an H200, see docs/performance.md):
- per block, 12 bytes: start time (uint64 ns, %globaltimer) and SM (uint32, %smid), written by
  thread 0 when the block starts;
- per warp, 8 bytes: end time (uint64 ns), the latest %globaltimer read of its returning lanes
  (atomic max: lanes that return in groups each read the timer, the last read wins, not the last
  store). At level `accesses` also a start time (uint64 ns) stored by the warp's lane 0, so that a
  block spans its warps' first to last read. Nothing per thread: a per-warp start record cost 1.37x
  on vector add at level `threads`, per-thread records more.
- per access, 8 bytes a lane: element index (uint32) and value (as float32); and 16 bytes a group
  of lanes that log together (the lanes of a warp in one hook with the same site, epoch and array):
  its global warp, lane mask, line (15 bits) | barrier epoch (9 bits) | array id (6 bits) | kind
  (2 bits), and the low 32 bits of %globaltimer when it logged (the host restores the high bits
  from the warp's start: exact while a warp runs under 2 s). The group's leader reserves its lanes'
  consecutive slots with one atomic and writes the header at the group's first slot; the header
  columns are as long as the lane columns, and slots that start no group keep the EMPTY mark.
  Counters: one of COUNTERS picked by warp, each owning a region of the log, so that no single
  counter is a hot spot; a full region spills into the next.
"""

from __future__ import annotations

from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit

# The thread context `_t` that _gv_begin returns (the hooks index it by position): 0 global thread id,
# 1 global warp, 2 epoch (a one-element local array), 3-4 the lane columns (element, value), 5-8 the
# group header columns (warp, lane mask, packed meta, time), 9 the slot counters, 10 the log's
# capacity, 11 the lane. _gv_begin_threads returns only 0 and 1.
COUNTERS = 64
COUNTER_STRIDE = 16  # int64s: one counter a 128-byte line
EMPTY = 0xFFFFFFFF  # meta of a slot no event was written to (kind 3 does not exist): all one bits

ATOMIC_RESULTS = {
    "add": "old + v0", "sub": "old - v0", "and_": "old & v0", "or_": "old | v0", "xor": "old ^ v0",
    "max": "max(old, v0)", "min": "min(old, v0)", "nanmax": "max(old, v0)", "nanmin": "min(old, v0)",
    "inc": "0 if old >= v0 else old + 1", "dec": "v0 if (old == 0 or old > v0) else old - 1",
    "exch": "v0", "cas": "v1 if old == v0 else old",
}  # fmt: skip

_CORE = """
def _gv_leader(mask):
    low = mask & (~mask + _gv_uint32(1))
    return _gv_cuda.popc(low - _gv_uint32(1))

def _gv_claim(t, n):
    region = t[10] // COUNTERS
    k = t[1] % COUNTERS
    for _ in range(COUNTERS):
        base = _gv_cuda.atomic.add(t[9], k * STRIDE, _gv_int64(n))
        if base + n <= region:
            return k * region + base
        k = (k + 1) % COUNTERS
    t[9][COUNTERS * STRIDE] = 1
    return _gv_int64(-1)

def _gv_header(t, first, mask, meta):
    t[5][first] = _gv_uint32(t[1])
    t[6][first] = mask
    t[8][first] = _gv_uint32(_gv_globaltimer() & 0xFFFFFFFF)
    t[7][first] = meta

def _gv_record(t, aid, flat, kind, line, value):
    epoch = min(t[2][0], 511)
    meta = _gv_uint32((min(line, 32767) << 17) | (epoch << 8) | (aid << 2) | kind)
    key = _gv_int64(meta)
    mask = _gv_cuda.activemask()
    lane = _gv_cuda.laneid
    same = _gv_cuda.ballot_sync(mask, key == _gv_cuda.shfl_sync(mask, key, _gv_leader(mask)))
    if same != mask:  # lanes from different sites or epochs: one group for each meta
        mask = _gv_uint32(_gv_cuda.match_any_sync(mask, key) & 0xFFFFFFFF)
    leader = _gv_leader(mask)
    first = _gv_int64(-1)
    if lane == leader:
        first = _gv_claim(t, _gv_cuda.popc(mask))
        if first >= 0:
            _gv_header(t, first, mask, meta)
    first = _gv_cuda.shfl_sync(mask, first, leader)
    if first >= 0:
        slot = first + _gv_int64(_gv_cuda.popc(mask & ((_gv_uint32(1) << lane) - _gv_uint32(1))))
        t[3][slot] = _gv_uint32(flat)
        t[4][slot] = _gv_float32(value)

def _gv_record_simulated(t, aid, flat, kind, line, value):
    epoch = min(t[2][0], 511)
    meta = _gv_uint32((min(line, 32767) << 17) | (epoch << 8) | (aid << 2) | kind)
    first = _gv_claim(t, 1)
    if first >= 0:
        t[3][first] = _gv_uint32(flat)
        t[4][first] = _gv_float32(value)
        _gv_header(t, first, _gv_uint32(1) << t[11], meta)

def _gv_place():
    bdx = _gv_cuda.blockDim.x
    bdy = _gv_cuda.blockDim.y
    per_block = bdx * bdy * _gv_cuda.blockDim.z
    thread = _gv_cuda.threadIdx.x + _gv_cuda.threadIdx.y * bdx + _gv_cuda.threadIdx.z * bdx * bdy
    gdx = _gv_cuda.gridDim.x
    block = _gv_cuda.blockIdx.x + _gv_cuda.blockIdx.y * gdx + _gv_cuda.blockIdx.z * gdx * _gv_cuda.gridDim.y
    warp = _gv_int64(block) * ((per_block + 31) // 32) + thread // 32
    return _gv_int64(block), thread, per_block, warp

def _gv_start_block(block, thread, bs, bsm):
    if thread == 0:
        bs[block] = _gv_globaltimer()
        bsm[block] = _gv_smid()

def _gv_begin(bs, bsm, ws, ep, li, lv, hw, hm, hk, ht, cnt, cap):
    block, thread, per_block, warp = _gv_place()
    _gv_start_block(block, thread, bs, bsm)
    if thread % 32 == 0:
        ws[warp] = _gv_globaltimer()
    return (block * per_block + thread, warp, ep, li, lv, hw, hm, hk, ht, cnt, cap, thread % 32)

def _gv_begin_threads(bs, bsm):
    block, thread, per_block, warp = _gv_place()
    _gv_start_block(block, thread, bs, bsm)
    return (block * per_block + thread, warp)

def _gv_end(t, wend):
    mask = _gv_cuda.activemask()  # the lanes returning together: their leader reads the timer once
    if _gv_cuda.laneid == _gv_leader(mask):
        _gv_cuda.atomic.max(wend, t[1], _gv_uint64(_gv_globaltimer()))

def _gv_end_simulated(t, wend):
    _gv_cuda.atomic.max(wend, t[1], _gv_uint64(_gv_globaltimer()))

def _gv_epoch(t):
    t[2][0] += 1

def _gv_bar(t, value):
    t[2][0] += 1
    return value
"""

_INDEX_NAMES = ["i0", "i1", "i2"]
_AXIS = "({i} if {i} >= 0 else {i} + arr.shape[{k}])"  # numba wraps negative indices: so does the log
_FLAT = {
    1: _AXIS.format(i="i0", k=0),
    2: f"{_AXIS.format(i='i0', k=0)} * arr.shape[1] + {_AXIS.format(i='i1', k=1)}",
    3: f"({_AXIS.format(i='i0', k=0)} * arr.shape[1] + {_AXIS.format(i='i1', k=1)}) * arr.shape[2] + "
       f"{_AXIS.format(i='i2', k=2)}",
}  # fmt: skip


def _access_source(dims: int) -> str:
    # Only a whole index (as many parts as the array has axes) names one element: a row, or an
    # index held in a tuple variable, is accessed without logging. numba prunes the branch on
    # `arr.ndim`, a constant when it compiles, so the other case is never even typed.
    idx = ", ".join(_INDEX_NAMES[:dims])
    flat = _FLAT[dims]
    return f"""
def _gv_ld{dims}(t, aid, arr, {idx}, line):
    v = arr[{idx}]
    if arr.ndim == {dims}:
        if aid >= 0:
            _gv_record(t, aid, {flat}, 0, line, v)
    return v

def _gv_st{dims}(t, aid, arr, {idx}, value, line):
    arr[{idx}] = value
    if arr.ndim == {dims}:
        if aid >= 0:
            _gv_record(t, aid, {flat}, 1, line, arr[{idx}])
"""


def _atomic_source(op: str, dims: int) -> str:
    idx = ", ".join(_INDEX_NAMES[:dims])
    where = idx if dims == 1 else f"({idx})"
    operands = "v0, v1" if op == "cas" else "v0"
    return f"""
def _gv_at_{op}{dims}(t, aid, arr, {idx}, {operands}, line):
    old = _gv_cuda.atomic.{op}(arr, {where}, {operands})
    if arr.ndim == {dims}:
        if aid >= 0:
            _gv_record(t, aid, {_FLAT[dims]}, 2, line, {ATOMIC_RESULTS[op]})
    return old
"""


def hook_source() -> str:
    core = _CORE.replace("COUNTERS", str(COUNTERS)).replace("STRIDE", str(COUNTER_STRIDE))
    parts = [core] + [_access_source(d) for d in (1, 2, 3)]
    parts += [_atomic_source(op, d) for op in ATOMIC_RESULTS for d in (1, 2, 3)]
    return "\n".join(parts)


def make_hooks() -> dict:
    """The hook functions as numba device functions, in one namespace that the kernel joins."""
    cuda = import_numba_cuda()
    import numba

    from gpuviz.backends.gpu import intrinsics

    namespace = {
        "_gv_cuda": cuda,
        "_gv_uint32": numba.uint32,
        "_gv_int64": numba.int64,
        "_gv_uint64": numba.uint64,
        "_gv_int32": numba.int32,
        "_gv_float32": numba.float32,
        "_gv_smid": intrinsics.smid(),
        "_gv_globaltimer": intrinsics.globaltimer(),
    }
    before = set(namespace)
    exec(compile(hook_source(), "<gpuviz-gpu-hooks>", "exec"), namespace)
    if intrinsics.simulated():  # numba's simulator has no warp intrinsics
        namespace["_gv_record"] = namespace["_gv_record_simulated"]
        namespace["_gv_end"] = namespace["_gv_end_simulated"]
    for name in set(namespace) - before - {"__builtins__"}:
        namespace[name] = numba_jit()(device=True)(namespace[name])
    return namespace


_hooks: dict | None = None


def hooks() -> dict:
    """The hooks, compiled lazily by numba and shared by every kernel of the process."""
    global _hooks
    if _hooks is None:
        _hooks = make_hooks()
    return _hooks
