"""The recording hooks of the GPU backend, as numba device functions.

What they store (the overhead bars depend on it; measured figures in docs/performance.md):
- per block, 12 bytes: start time (uint64 ns, %globaltimer, thread 0's first instruction) and SM
  (uint32, %smid), stored by thread 0 as it returns: every thread reads the timer first, with no
  branch, and nothing waits for the reading until then;
- per warp, 8 bytes: end time (uint64 ns), the latest %globaltimer reading of its returning lanes
  (each returning lane stores its reading; the last store stays). At level `accesses` also its start
  (uint64 ns, lane 0's first reading, stored as lane 0 returns).
- per thread at level `accesses`, 2 bytes: how many of its slots it filled, written as it returns;
- per access, its own slot: no atomics and no warp-wide protocol, so divergence, grid barriers and
  independent thread scheduling cannot mix records up. Slot k of thread t is at k * threads + t of
  each column, so a warp's lanes write one coalesced run. Columns: a tag, a code (what the record
  is) over the low bits of the time in units of 32 ns, 32 or 16 bits as layout.py chooses per kernel
  (wide: array id 6 bits, site 9 bits, a bit saying "same element as this thread's previous record",
  over 16 time bits; narrow: the marks and sites numbered, the same bit, over what is left); the
  element (uint32; not written when the same-element bit is set: a thread's previous element starts
  as its own global id, so `a[i]` with `i = cuda.grid(1)` costs nothing), and the value (not written
  for arrays the kernel never writes: the host reads those from the inputs). The host restores a
  thread's times from its warp's start, record after record: a record more than the layout's guard
  after the thread's previous one is preceded by a time mark holding the
  high bits. Barriers leave a mark too (the host counts them into epochs): block barriers, grid syncs,
  syncwarps and device-wide threadfences, each with its own mark (a syncwarp's holds its mask).
- a thread's records past its K slots go to an overflow pool (thread, code, 32-bit time, element,
  value), reserved one record at a time with an atomic on one of COUNTERS counters picked by warp,
  each owning a region of the pool (a full region spills into the next); when the pool is full the
  records are dropped and the trace says it is truncated.
- a launch recorded with the guard (`--guard`, RunOptions.guard: the layout's `guarded`) checks every
  logged access first (_gv_inside): an element outside its array's memory, which would fault the kernel
  or touch another allocation, is not touched, and its lane stops touching memory; that access's
  record waits in the thread's state (slot 3) until the lane ends. It costs vector add about 14% on an
  H100, so it is asked for, not always on (docs/gpu.md).
"""

from __future__ import annotations

import re

from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit
from gpuviz.backends.gpu.layout import (  # noqa: F401  (the marks and units: decode.py and tests read them here)
    BARRIER,
    BLOCK_MARK,
    FENCE_MARK,
    FIRST_SITE,
    GRID_MARK,
    TIME_MARK,
    UNIT_SHIFT,
    WARP_MARK,
    WIDE,
    WIDE_SAME,
    RecordLayout,
)

COUNTERS = 256
COUNTER_STRIDE = 16  # int64s: one counter a 128-byte line
SAME = WIDE_SAME  # code bit of the wide layout: the element is the thread's previous one
MAX_SITE = 511  # site ids of the wide layout: BARRIER and TIME_MARK, then the kernel's access sites
# A barrier mark's array-id bits say which barrier (layout.py): a block's (syncthreads), the grid's
# (this_grid().sync()), a warp's (syncwarp, whose mask the mark's element holds) or a device-wide fence
# (threadfence, threadfence_system: the epoch's fence flag).
GUARD_NS = WIDE.guard_ns  # wide layout: a record this long after the thread's previous one follows a time mark

# The thread context `_t` that _gv_begin returns (the hooks index it by position): 0 global thread id,
# 1 global warp, 2 state (a local uint32[5]: records so far, previous element, previous time in units of
# 32 ns, and with the guard the code of the lane's first access outside its array (0: none) and its
# element; 32 bits each: a recorded kernel is bound by how many instructions it issues, and 64-bit
# arithmetic takes two where 32-bit takes one: docs/performance.md),
# 3-5 the slot columns (tag: code over the time's low bits, as layout.py packs it; element; value), 6 the
# per-thread counts, 7 slots a thread (K), 8 threads in the launch, 9-13 the pool's columns (thread, code,
# time, element, value), 14 the pool's counters, 15 the pool's size, 16 the mask of array ids whose values
# are stored, 17 the thread's first reading (ns), 18 its block, 19 its place in the block, 20-22 the block
# starts, block SMs and warp starts.
# _gv_begin_threads returns 0 and 1, then 2 the first reading, 3 the block, 4 the place, 5-6 the block
# starts and SMs.

ATOMIC_RESULTS = {
    "add": "old + v0", "sub": "old - v0", "and_": "old & v0", "or_": "old | v0", "xor": "old ^ v0",
    "max": "max(old, v0)", "min": "min(old, v0)", "nanmax": "max(old, v0)", "nanmin": "min(old, v0)",
    "inc": "0 if old >= v0 else old + 1", "dec": "v0 if (old == 0 or old > v0) else old - 1",
    "exch": "v0", "cas": "v1 if old == v0 else old",
}  # fmt: skip

_CORE = """
def _gv_claim(t):
    if t[14][COUNTERS * STRIDE] != 0:  # the pool was found full: one load, not a round of atomics a record
        return _gv_int64(-1)
    # Unsigned and 32-bit where they can be: this path is compiled into every access, and its registers
    # count against the whole kernel's (the register cap, docs/performance.md).
    region = t[15] >> COUNTER_BITS
    k = _gv_uint32(t[1]) & (COUNTERS - 1)
    for _ in range(COUNTERS):
        base = _gv_cuda.atomic.add(t[14], k * STRIDE, _gv_int64(1))
        if base < region:
            return _gv_int64(k) * region + base
        k = _gv_uint32(k + 1) & (COUNTERS - 1)
    t[14][COUNTERS * STRIDE] = 1
    return _gv_int64(-1)

def _gv_put(t, k, code, element, keep_element, now, value, keep_value):
    units = now >> UNIT
    if k < t[7]:
        slot = _gv_uint64(k) * t[8] + t[0]  # unsigned (as the place's parts): no code for negative indices
        t[3][slot] = TAG((code << TIME_BITS) | (units & TIME_MASK))
        if keep_element:
            t[4][slot] = _gv_uint32(element)
        if keep_value:
            t[5][slot] = value
    else:
        p = _gv_claim(t)
        if p >= 0:
            t[9][p] = _gv_uint32(t[0])
            t[10][p] = _gv_uint16(code & (SAME - 1))
            t[11][p] = _gv_uint32(units & 0xFFFFFFFF)
            t[12][p] = _gv_uint32(element)
            if keep_value:
                t[13][p] = value

def _gv_log(t, code, flat, value, keep_value):
    s = t[2]
    k = s[0]
    now = _gv_int64(_gv_globaltimer())
    k = _gv_mark_time(t, k, now)
    element = _gv_uint32(flat)  # the log keeps 32 bits of an element (arrays of up to 2^32 elements)
    same = element == s[1]
    s[1] = element
    _gv_put(t, k, code | (SAME if same else 0), flat, not same, now, value, keep_value)
    s[0] = k + 1

def _gv_mark_time(t, k, now):
    # A record more than GUARD units after the thread's previous one follows a time mark with the high
    # bits. The difference wraps at 32 bits (137 s), as the state keeps the units.
    s = t[2]
    units = _gv_uint32(now >> UNIT)
    if _gv_uint32(units - s[2]) >= GUARD:
        _gv_put(t, k, TIME_CODE, (now >> (UNIT + TIME_BITS)) & 0xFFFFFFFF, True, now, 0, False)
        k += 1
    s[2] = units
    return k

def _gv_access(t, aid, site, flat, value):
    _gv_log(t, ACCESS_CODE, _gv_int64(flat), _gv_logged(t[5], value), _gv_uint32((t[16] >> aid) & 1) != 0)

PLACE
def _gv_begin(bs, bsm, ws, st, tag, le, lv, lc, k, ps_thread, ps_code, ps_time, ps_element, ps_value,
              counters, pool, vmask):
    now = _gv_uint64(_gv_globaltimer())  # stored as the thread returns (_gv_begin_threads says why)
    block, thread, per_block, warp = _gv_place()
    gid = block * per_block + thread
    st[0] = 0
    st[1] = _gv_uint32(gid)
    st[2] = _gv_uint32(now >> UNIT)
    threads = _gv_uint64(per_block) * _gv_uint64(_gv_cuda.gridDim.x * _gv_cuda.gridDim.y * _gv_cuda.gridDim.z)
    return (gid, warp, st, tag, le, lv, lc, k, threads, ps_thread, ps_code, ps_time, ps_element, ps_value,
            counters, pool, vmask, now, block, thread, bs, bsm, ws)

def _gv_begin_threads(bs, bsm):
    # Every thread reads the timer first, with no branch, and nothing waits for the reading until the
    # thread returns; thread 0 stores its block's start and SM then (_gv_end). Stored as the block
    # started, by thread 0 alone, they held back warp 0's first instructions, and with it the block's
    # end: 4% of a memory-bound kernel's time on an H200 (bench/gpu_recorder_floor.py).
    start = _gv_uint64(_gv_globaltimer())
    block, thread, per_block, warp = _gv_place()
    return (block * per_block + thread, warp, start, block, thread, bs, bsm)

def _gv_placed(t, wend):
    # Always true (a thread's warp is one of the launch's), but the compiler cannot know it, so the
    # kernel's body, which runs under it at level `threads`, starts only once the thread's place is
    # worked out. Left free, the compiler fills a racy load's wait with that work and the thread's
    # end (their order, not their cost, is what it chooses), and the in-order warp then issues the
    # racy store behind it: the window in which other warps' stores land widens, and a one-address
    # counter at [1024, 1024] kept 8-13 updates against the plain kernel's 15-19 (docs/gpu.md).
    return t[1] < _gv_uint64(wend.shape[0])

def _gv_warp_end(wend, warp):
    # Every returning lane stores its reading (one instruction and one transaction for the lanes that
    # return together); lanes of a warp that return later store later, so the last store, which
    # stays, is the latest reading. An atomic max or a choice of one lane costs more (docs/gpu.md).
    wend[warp] = _gv_uint64(_gv_globaltimer())

def _gv_block_start(thread, block, start, bs, bsm):
    if thread == 0:
        bs[block] = start
        bsm[block] = _gv_smid()  # read where nothing waits for it (any reading names the block's SM)

def _gv_end(t, wend):
    _gv_warp_end(wend, t[1])
    _gv_block_start(t[4], t[3], t[2], t[5], t[6])

def _gv_end_log(t, wend):
FAULT_RECORD    t[6][t[0]] = _gv_uint16(min(t[2][0], _gv_uint32(t[7])))
    _gv_warp_end(wend, t[1])
    if (t[19] & 31) == 0:  # lane 0: its warp's start, the first time of each of its lanes' records
        t[22][t[1]] = t[17]
        _gv_block_start(t[19], t[18], t[17], t[20], t[21])

def _gv_epoch(t):
    _gv_log(t, BLOCK_CODE, t[2][1], 0, False)

def _gv_bar(t, value):
    _gv_epoch(t)
    return value

def _gv_grid_epoch(t):
    _gv_log(t, GRID_CODE, t[2][1], 0, False)

def _gv_fence_mark(t):
    _gv_log(t, FENCE_CODE, t[2][1], 0, False)

def _gv_syncwarp(t, mask):
    # The mark keeps the mask (in the element column): the host finds which lanes met from it
    # (backends/gpu/meetings.py). The thread's previous element stays as it was.
    _gv_cuda.syncwarp(mask)
    s = t[2]
    now = _gv_int64(_gv_globaltimer())
    k = _gv_mark_time(t, s[0], now)
    _gv_put(t, k, WARP_CODE, mask, True, now, 0, False)
    s[0] = k + 1
"""

_GUARD = """
def _gv_inside(t, flat, size):
    # An element outside its array's memory would fault the kernel (CUDA_ERROR_ILLEGAL_ADDRESS) or touch
    # another allocation; a lane that met one is stopped (state 3), as the simulator stops it. Size 0
    # (dynamic shared memory, whose size numba's type does not hold) lets every element through.
    return t[2][3] == 0 and (size == 0 or _gv_uint64(flat) < _gv_uint64(size))

def _gv_fault(t, aid, site, flat):
    # The lane's first access outside its array stops its memory accesses; its record (code and element,
    # clipped to 32 bits so that the host sees it past the end: memcheck.py) waits in the state until
    # the lane ends (_gv_end_log), which keeps the logging code out of every access.
    s = t[2]
    if s[3] == 0:
        s[3] = (1 << 16) | ACCESS_CODE  # never 0: the flag bit over the code
        s[4] = _gv_far(flat)

def _gv_far(flat):
    return _gv_uint32(0xFFFFFFFF) if flat < 0 or flat >= 0xFFFFFFFF else _gv_uint32(flat)
"""

_FAULT_RECORD = """    fault = t[2][3]
    if fault != 0:
        _gv_log(t, fault & 0xFFFF, t[2][4], 0, False)
"""

_PLACE_ANY = """
def _gv_place():
    # A block has at most 1024 threads: its sizes and a thread's place in it fit 32 bits, which
    # numba would widen to 64 (the casts let the compiler keep them narrow). Unsigned, so that an
    # array indexed with them needs no code for negative indices.
    bdx = _gv_cuda.blockDim.x
    bdy = _gv_cuda.blockDim.y
    per_block = _gv_uint32(bdx * bdy * _gv_cuda.blockDim.z)
    thread = _gv_uint32(_gv_cuda.threadIdx.x + _gv_cuda.threadIdx.y * bdx + _gv_cuda.threadIdx.z * bdx * bdy)
    gdx = _gv_cuda.gridDim.x
    gdy = _gv_cuda.gridDim.y
    block = _gv_uint64(_gv_cuda.blockIdx.x + _gv_cuda.blockIdx.y * gdx + _gv_cuda.blockIdx.z * gdx * gdy)
    warp = block * _gv_uint64(_gv_uint32(per_block + 31) >> 5) + _gv_uint64(thread >> 5)
    return block, thread, per_block, warp
"""

_PLACE_FLAT = """
def _gv_place():
    # A launch with one axis (grid and block): numba cannot know it, so the other axes' reads and
    # products would cost every thread a few instructions (docs/performance.md measures them).
    per_block = _gv_uint32(_gv_cuda.blockDim.x)
    thread = _gv_uint32(_gv_cuda.threadIdx.x)
    block = _gv_uint64(_gv_cuda.blockIdx.x)
    warp = block * _gv_uint64(_gv_uint32(per_block + 31) >> 5) + _gv_uint64(thread >> 5)
    return block, thread, per_block, warp
"""

_INDEX_NAMES = ["i0", "i1", "i2"]
# numba wraps negative indices: so does the log. Extents through _gv_extent, which types for a tuple
# too: a device function's parameter may be an array at one call and a tuple (a shape) at another.
_AXIS = "({i} if {i} >= 0 else {i} + _gv_extent(arr, {k}))"
_FLAT = {
    1: _AXIS.format(i="i0", k=0),
    2: f"{_AXIS.format(i='i0', k=0)} * _gv_extent(arr, 1) + {_AXIS.format(i='i1', k=1)}",
    3: f"({_AXIS.format(i='i0', k=0)} * _gv_extent(arr, 1) + {_AXIS.format(i='i1', k=1)}) * _gv_extent(arr, 2) + "
       f"{_AXIS.format(i='i2', k=2)}",
}  # fmt: skip


# Elements of the array's memory: 0 for dynamic shared memory, whose size numba's type does not hold
# (the guard then lets every index through, as numba does).
_SIZE = {
    1: "_gv_extent(arr, 0)",
    2: "_gv_extent(arr, 0) * _gv_extent(arr, 1)",
    3: "_gv_extent(arr, 0) * _gv_extent(arr, 1) * _gv_extent(arr, 2)",
}


def _access_source(dims: int) -> str:
    # Only a whole index (as many parts as the array has axes) names one element: a row, or an
    # index held in a tuple variable, is accessed without logging; so is a tuple. _gv_dims is a
    # constant when numba compiles, so the branch costs nothing where it is not taken.
    idx = ", ".join(_INDEX_NAMES[:dims])
    flat = _FLAT[dims]
    return f"""
def _gv_ld{dims}(t, aid, arr, {idx}, site):
    v = arr[{idx}]
    if _gv_dims(arr) == {dims}:
        if aid >= 0:
            _gv_access(t, aid, site, {flat}, v)
    return v

def _gv_st{dims}(t, aid, arr, {idx}, value, site):
    # The value the element now holds is the one stored, as the array's type makes it: the log
    # takes it from the register, with no load of the array after the store.
    v = _gv_element(arr, value)
    arr[{idx}] = v
    if _gv_dims(arr) == {dims}:
        if aid >= 0:
            _gv_access(t, aid, site, {flat}, v)
"""


def _atomic_words(op: str, dims: int) -> tuple[str, str, str]:
    """(the index parameters, the index numba's atomic takes, the operands) of an atomic hook."""
    idx = ", ".join(_INDEX_NAMES[:dims])
    return idx, idx if dims == 1 else f"({idx})", "v0, v1" if op == "cas" else "v0"


def _atomic_source(op: str, dims: int) -> str:
    idx, where, operands = _atomic_words(op, dims)
    return f"""
def _gv_at_{op}{dims}(t, aid, arr, {idx}, {operands}, site):
    old = _gv_cuda.atomic.{op}(arr, {where}, {operands})
    if arr.ndim == {dims}:
        if aid >= 0:
            _gv_access(t, aid, site, {_FLAT[dims]}, {ATOMIC_RESULTS[op]})
    return old
"""


def _guarded_access_source(dims: int) -> str:
    # _access_source's hooks, each access first checked (_gv_inside): an element outside its array's
    # memory is not touched (a load gives 0 of its type) and stops the lane (_gv_fault).
    idx = ", ".join(_INDEX_NAMES[:dims])
    zeros = ", ".join("0" for _ in range(dims))  # typed as the load, never read (_gv_zero)
    flat, size = _FLAT[dims], _SIZE[dims]
    return f"""
def _gv_ld{dims}(t, aid, arr, {idx}, site):
    if _gv_dims(arr) == {dims} and aid >= 0:
        f = {flat}
        ok = _gv_inside(t, f, {size})
        if ok:
            v = arr[{idx}]
            _gv_access(t, aid, site, f, v)
        else:
            v = _gv_zero(arr[{zeros}])
            _gv_fault(t, aid, site, f)
        return v
    return arr[{idx}]

def _gv_st{dims}(t, aid, arr, {idx}, value, site):
    # The value the element now holds is the one stored, as the array's type makes it: the log
    # takes it from the register, with no load of the array after the store.
    v = _gv_element(arr, value)
    if _gv_dims(arr) == {dims} and aid >= 0:
        f = {flat}
        if _gv_inside(t, f, {size}):
            arr[{idx}] = v
            _gv_access(t, aid, site, f, v)
        else:
            _gv_fault(t, aid, site, f)
    else:
        arr[{idx}] = v
"""


def _guarded_atomic_source(op: str, dims: int) -> str:
    idx, where, operands = _atomic_words(op, dims)
    return f"""
def _gv_at_{op}{dims}(t, aid, arr, {idx}, {operands}, site):
    if arr.ndim == {dims} and aid >= 0:
        f = {_FLAT[dims]}
        if _gv_inside(t, f, {_SIZE[dims]}):
            old = _gv_cuda.atomic.{op}(arr, {where}, {operands})
            _gv_access(t, aid, site, f, {ATOMIC_RESULTS[op]})
        else:
            old = _gv_element(arr, 0)
            _gv_fault(t, aid, site, f)
        return old
    return _gv_cuda.atomic.{op}(arr, {where}, {operands})
"""


def hook_source(layout: RecordLayout = WIDE) -> str:
    """The hooks' source for one record layout (layout.py)."""
    constants = {"COUNTERS": COUNTERS, "COUNTER_BITS": COUNTERS.bit_length() - 1, "STRIDE": COUNTER_STRIDE,
                 "SAME": layout.same, "GUARD": layout.guard_ns >> UNIT_SHIFT, "UNIT": UNIT_SHIFT,
                 "TIME_BITS": layout.time_bits, "TIME_MASK": (1 << layout.time_bits) - 1,
                 "TAG": "_gv_uint16" if layout.narrow else "_gv_uint32", **layout.codes()}  # fmt: skip
    core = _CORE.replace("PLACE\n", _PLACE_FLAT if layout.flat else _PLACE_ANY)
    access, atomic = _access_source, _atomic_source
    core = core.replace("FAULT_RECORD", _FAULT_RECORD if layout.guarded else "")
    if layout.guarded:  # the state's slot 3 (the lane's fault) starts empty; the guard's own hooks join
        first_time = "    st[2] = _gv_uint32(now >> UNIT)\n"
        core = core.replace(first_time, first_time + "    st[3] = 0\n") + _GUARD
        access, atomic = _guarded_access_source, _guarded_atomic_source
    for name, value in constants.items():
        core = re.sub(rf"\b{name}\b", str(value), core)
    parts = [core] + [access(d) for d in (1, 2, 3)]
    parts += [atomic(op, d) for op in ATOMIC_RESULTS for d in (1, 2, 3)]
    return "\n".join(parts)


def make_hooks(layout: RecordLayout = WIDE) -> dict:
    """The hook functions as numba device functions, in one namespace that the kernel joins."""
    cuda = import_numba_cuda()
    import numba

    from gpuviz.backends.gpu import intrinsics

    namespace = {
        "_gv_cuda": cuda,
        "_gv_uint16": numba.uint16,
        "_gv_uint32": numba.uint32,
        "_gv_int32": numba.int32,
        "_gv_int64": numba.int64,
        "_gv_logged": intrinsics.log_value(),
        "_gv_element": intrinsics.as_element(),
        "_gv_zero": intrinsics.zero_like(),
        "_gv_dims": intrinsics.dims(),
        "_gv_extent": intrinsics.extent(),
        "_gv_uint64": numba.uint64,
        "_gv_smid": intrinsics.smid(),
        "_gv_globaltimer": intrinsics.globaltimer(),
    }
    before = set(namespace)
    exec(compile(hook_source(layout), "<gpuviz-gpu-hooks>", "exec"), namespace)
    device = device_function_decorator()
    for name in set(namespace) - before - {"__builtins__"}:
        namespace[name] = device(namespace[name])
    return namespace


def device_function_decorator():
    """numba's device-function decorator, inlining where it compiles: a hook called as a function
    would pass the thread context (a tuple of arrays) on every access and keep the thread's log
    state in local memory instead of registers."""
    from gpuviz.backends.gpu import intrinsics

    if intrinsics.simulated():
        return numba_jit()(device=True)
    return numba_jit()(device=True, forceinline=True)


_hooks: dict[RecordLayout, dict] = {}


def hooks(layout: RecordLayout = WIDE) -> dict:
    """The hooks of one layout, compiled lazily by numba and shared by every kernel of the process."""
    if layout not in _hooks:
        _hooks[layout] = make_hooks(layout)
    return _hooks[layout]
