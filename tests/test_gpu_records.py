"""Decoding the GPU recorder's buffers: pure NumPy, no GPU needed."""

import numpy as np
import pytest

from gpuviz.backends.gpu.decode import (
    NOT_STORED,
    PoolLog,
    SlotLog,
    accesses_of,
    decode_records,
    known_starts,
    place_in_time,
    thread_times,
)
from gpuviz.backends.gpu.hooks import BARRIER, FENCE_MARK, FIRST_SITE, GRID_MARK, SAME, TIME_MARK, WARP_MARK
from gpuviz.core.trace.columns import epoch_field


def test_threads_span_their_warps_first_to_last_reading():
    block_start = np.array([1000, 2000], np.uint64)
    warp_start = np.array([1010, 990, 2000, 2005], np.uint64)  # warp 1 read the timer before thread 0 did
    warp_end = np.array([1500, 1400, 2600, 2100], np.uint64)
    start, end, first = thread_times(block_start, warp_start, warp_end, threads_per_block=64)
    assert first == 990
    assert start[::32].tolist() == [20, 0, 1010, 1015] and end[::32].tolist() == [510, 410, 1610, 1110]
    assert (start[:32] == 20).all() and (end[96:] == 1110).all()
    start, _, first = thread_times(block_start, None, warp_end, threads_per_block=64)
    assert first == 1000 and start[::32].tolist() == [0, 0, 1000, 1000]


def test_a_start_no_thread_stored_becomes_its_blocks_earliest_recorded_reading():
    """Thread 0 stores its block's start, lane 0 its warp's, as it returns; one that left the kernel
    through an exception (numba's silent return for a raise) stored nothing and the buffer keeps its
    all-ones mark. The start becomes the block's earliest recorded reading: a warp's start, else a warp's
    end (0: no lane stored one), else the launch's earliest; the blocks without one are named."""
    x = NOT_STORED
    block_start = np.array([1000, x, x], np.uint64)
    warp_end = np.array([1500, 1400, 2600, 2100, 0, 0], np.uint64)  # block 2: no lane returned either
    starts, _, unstored = known_starts(block_start, None, warp_end, warps_per_block=2)
    assert starts.tolist() == [1000, 2100, 1000] and unstored.tolist() == [False, True, True]
    warp_start = np.array([1010, x, x, 2005, x, x], np.uint64)  # lanes 0 of warps 1, 2, 4 and 5 raised
    starts, warps, unstored = known_starts(block_start, warp_start, warp_end, warps_per_block=2)
    assert starts.tolist() == [1000, 2005, 1000] and warps.tolist() == [1010, 1000, 2005, 2005, 1000, 1000]
    start, _, first = thread_times(starts, warps, warp_end, threads_per_block=64)
    assert first == 1000 and start.min() == 0  # no all-ones value reaches the times
    whole = np.array([5, 6], np.uint64)
    starts, _, unstored = known_starts(whole, None, np.array([9, 9, 9, 9], np.uint64), warps_per_block=2)
    assert starts.tolist() == [5, 6] and not unstored.any()


def test_a_warp_value_goes_to_each_of_its_threads_also_in_a_partial_warp():
    from gpuviz.backends.gpu.decode import per_thread

    assert per_thread(np.array([7, 8]), threads_per_block=64).tolist() == [7] * 32 + [8] * 32
    spread = per_thread(np.array([1, 2, 3, 4]), threads_per_block=40)  # 2 blocks of a full and an 8-lane warp
    assert spread.tolist() == [1] * 32 + [2] * 8 + [3] * 32 + [4] * 8


def test_accesses_are_put_in_time_order_keeping_the_log_order_of_ties():
    accesses = {
        "thread": np.array([1, 0, 0, 1], np.int32),
        "kind": np.array([0, 0, 1, 1], np.int8),
        "time": np.array([3, 1, 1, 2], np.int64),
    }  # in units of 32 ns
    placed = place_in_time(accesses, np.zeros(2, np.int64), first=10)
    assert placed["time"].tolist() == [22, 22, 54, 86]
    assert placed["thread"].tolist() == [0, 0, 1, 1] and placed["kind"].tolist() == [0, 1, 1, 0]
    late_start = place_in_time(accesses, np.array([30, 0]), first=10)  # a time cut to its unit stays in its thread
    assert late_start["time"].tolist()[:2] == [30, 30]


def test_the_timer_step_is_the_median_change_between_readings():
    from gpuviz.backends.gpu.timer import step_of

    assert step_of(np.array([0, 0, 32, 32, 64, 96, 96, 1000], np.uint64)) == 32
    assert step_of(np.array([5, 5, 5], np.uint64)) is None


def _slots(records_by_thread: list[list[tuple]], value_dtype=np.float32) -> SlotLog:
    """Slot columns from each thread's records (code, time units, element, value), as the kernel fills them."""
    rows = max(len(r) for r in records_by_thread)
    n = len(records_by_thread)
    columns = [np.zeros((rows, n), np.uint16), np.zeros((rows, n), np.uint16), np.full((rows, n), 7777, np.uint32),
               np.full((rows, n), -1, value_dtype)]  # fmt: skip
    for t, records in enumerate(records_by_thread):
        for k, (code, units, element, value) in enumerate(records):
            columns[0][k, t], columns[1][k, t] = code, units & 0xFFFF
            if element is not None:
                columns[2][k, t] = element
            if value is not None:
                columns[3][k, t] = value
    return SlotLog(*columns, count=np.array([len(r) for r in records_by_thread], np.uint16))


def _empty_pool() -> PoolLog:
    return PoolLog(*(np.zeros(0, d) for d in (np.uint32, np.uint16, np.uint32, np.uint32, np.float32)),
                   rank=np.zeros(0, np.int64))  # fmt: skip


def _code(site, aid, same=False):
    return (site << 6) | aid | (SAME if same else 0)


def test_slots_decode_thread_by_thread_with_elements_kept_from_the_previous_record():
    read, write = FIRST_SITE, FIRST_SITE + 1
    slots = _slots([
        [(_code(read, 0, same=True), 105, None, 1.5), (_code(write, 1, same=True), 106, None, 2.5)],  # a[0], c[0]
        [(_code(read, 0), 110, 9, 3.0), (_code(read, 0, same=True), 111, None, 3.0), (_code(write, 1), 112, 4, 8.0)],
    ])  # fmt: skip
    rec = decode_records(slots, _empty_pool(), start_units=np.array([100, 100]))
    assert rec["thread"].tolist() == [0, 1, 0, 1, 1]  # row by row: each thread's k-th record
    assert rec["element"].tolist() == [0, 9, 0, 9, 4]  # thread 0's first element is its own id
    assert rec["time"].tolist() == [105, 110, 106, 111, 112]
    assert rec["value"].tolist() == [1.5, 3.0, 2.5, 3.0, 8.0]
    assert (rec["code"] & 63).tolist() == [0, 0, 1, 0, 1] and rec["epoch"].tolist() == [0] * 5


@pytest.mark.parametrize("epoch_units", [0, 1_792_000_000_000_000_000 >> 5])  # small, and %globaltimer in 2026
def test_times_unwrap_record_after_record_and_time_marks_carry_the_high_bits(epoch_units):
    start = epoch_units + (3 << 16) + 65530
    later = start + 20  # across a wrap of the low 16 bits
    far = start + (9 << 16) + 5
    slots = _slots([[(_code(FIRST_SITE, 0), later, 1, 0.0), (_code(TIME_MARK, 0), far, (far >> 16) & 0xFFFFFFFF, None),
                     (_code(FIRST_SITE, 0, same=True), far + 2, None, 0.0)]])  # fmt: skip
    rec = decode_records(slots, _empty_pool(), start_units=np.array([start]))
    assert rec["time"].tolist() == [later, far + 2]
    assert rec["element"].tolist() == [1, 1]  # the mark kept the thread's previous element


def test_barrier_marks_count_into_epochs_in_the_slots_and_in_the_pool():
    slots = _slots([[(_code(FIRST_SITE, 0), 1, 5, 0.0), (_code(BARRIER, 0), 2, None, None),
                     (_code(FIRST_SITE, 0), 3, 6, 0.0)]])  # fmt: skip
    pool = PoolLog(np.array([0, 0, 0], np.uint32), np.array([_code(BARRIER, 0), _code(FIRST_SITE, 0), 0], np.uint16),
                   np.array([4, 5, 6], np.uint32), np.array([0, 7, 0], np.uint32), np.zeros(3, np.float32),
                   rank=np.array([0, 1, 2]))  # fmt: skip
    pool.code[2] = _code(FIRST_SITE + 1, 0)
    pool.element[2] = 8
    rec = decode_records(slots, pool, start_units=np.array([0]))
    assert rec["element"].tolist() == [5, 6, 7, 8] and rec["epoch"].tolist() == [0, 1, 2, 2]
    assert rec["time"].tolist() == [1, 3, 5, 6]


def _fields(epochs) -> list[tuple[int, int, int, int]]:
    return [tuple(int(epoch_field(e, f)) for f in ("block", "grid", "warp", "fence")) for e in epochs]


def test_grid_syncs_syncwarps_and_fences_fill_their_epoch_fields():
    """A grid sync moves the block's and the grid's counters (as the simulator counts it); every syncwarp
    the warp's, whatever its mask (each lane that met counts it, as on the simulator); a device-wide
    fence sets the fence flag, which stays set."""
    access = (_code(FIRST_SITE, 0), 1, 5, 0.0)
    fence = (_code(BARRIER, FENCE_MARK, same=True), 4, None, None)
    full, low16 = 0xFFFFFFFF, 0xFFFF
    thread0 = [access, (_code(BARRIER, GRID_MARK, same=True), 2, None, None), access,
               (_code(BARRIER, WARP_MARK), 3, full, None), access, (_code(BARRIER, WARP_MARK), 4, 0x3, None),
               access]  # fmt: skip
    thread1 = [access, (_code(BARRIER, WARP_MARK), 2, low16, None), access, fence, access,
               (_code(BARRIER, 0, same=True), 3, None, None), fence, access]  # fmt: skip
    rec = decode_records(_slots([thread0, thread1]), _empty_pool(), start_units=np.zeros(2, np.int64))
    epochs = {t: _fields(rec["epoch"][rec["thread"] == t]) for t in (0, 1)}
    assert epochs[0] == [(0, 0, 0, 0), (1, 1, 0, 0), (1, 1, 1, 0), (1, 1, 2, 0)]
    assert epochs[1] == [(0, 0, 0, 0), (0, 0, 1, 0), (0, 0, 1, 1), (1, 0, 1, 1)]
    marks = rec["syncwarps"]
    assert marks["thread"].tolist() == [0, 0, 1] and marks["mask"].tolist() == [full, 0x3, low16]
    assert _fields(marks["epoch"]) == [(1, 1, 0, 0), (1, 1, 1, 0), (0, 0, 0, 0)]  # each before its mark


def test_the_pool_counts_grid_and_warp_marks_as_the_slots_do():
    codes = [_code(BARRIER, GRID_MARK), _code(FIRST_SITE, 0), _code(BARRIER, WARP_MARK), _code(FIRST_SITE, 0)]
    pool = PoolLog(np.zeros(4, np.uint32), np.array(codes, np.uint16), np.arange(4, dtype=np.uint32),
                   np.array([0, 7, 0xFFFFFFFF, 8], np.uint32), np.zeros(4, np.float32), rank=np.arange(4))  # fmt: skip
    slots = _slots([[(_code(BARRIER, GRID_MARK), 0, None, None)]])
    rec = decode_records(slots, pool, start_units=np.zeros(1, np.int64))
    assert _fields(rec["epoch"]) == [(2, 2, 0, 0), (2, 2, 1, 0)]
    assert rec["syncwarps"]["mask"].tolist() == [0xFFFFFFFF] and _fields(rec["syncwarps"]["epoch"]) == [(2, 2, 0, 0)]


def test_pool_records_follow_their_threads_order_not_the_pools():
    pool = PoolLog(np.array([1, 0, 1], np.uint32), np.full(3, _code(FIRST_SITE, 0), np.uint16),
                   np.array([30, 10, 20], np.uint32), np.array([13, 10, 12], np.uint32), np.zeros(3, np.float32),
                   rank=np.array([5, 0, 2]))  # thread 1's record at rank 2 came before its rank-5 one  # fmt: skip
    slots = SlotLog(*(np.zeros((0, 2), d) for d in (np.uint16, np.uint16, np.uint32, np.float32)),
                    count=np.zeros(2, np.uint16))  # fmt: skip
    rec = decode_records(slots, pool, start_units=np.zeros(2, np.int64))
    assert rec["thread"].tolist() == [0, 1, 1] and rec["element"].tolist() == [10, 12, 13]


def test_loads_of_read_only_arrays_take_their_values_from_the_inputs():
    remap = np.full(64, -1, np.int64)
    remap[[0, 1, 33]] = [0, 1, 2]
    sites = np.zeros((512, 2), np.int64)
    sites[FIRST_SITE], sites[FIRST_SITE + 1] = (7, 0), (8, 1)
    records = {"thread": np.array([0, 0, 1]), "code": np.array([_code(FIRST_SITE, 0), _code(FIRST_SITE + 1, 1),
               _code(FIRST_SITE, 5)]), "element": np.array([2, 2, 0]), "value": np.array([-1.0, 4.0, 9.0]),
               "time": np.array([1, 2, 3]), "epoch": np.zeros(3, np.int32)}  # fmt: skip
    acc = accesses_of(records, remap, sites, initial={0: np.array([10.0, 11.0, 12.0])})
    assert acc["value"].tolist() == [12.0, 4.0]  # array id 5 is not traced: dropped
    assert acc["line"].tolist() == [7, 8] and acc["kind"].tolist() == [0, 1] and acc["array"].tolist() == [0, 1]


def test_a_logged_element_past_the_end_is_reported_as_out_of_bounds():
    from gpuviz.core.analysis.memcheck import recorded_out_of_bounds

    remap = np.full(64, -1, np.int64)
    remap[0] = 0
    sites = np.zeros((512, 2), np.int64)
    sites[FIRST_SITE] = (5, 1)
    records = {"thread": np.array([3, 4]), "code": np.full(2, _code(FIRST_SITE, 0)), "element": np.array([99, 100]),
               "value": np.ones(2), "time": np.zeros(2, np.int64), "epoch": np.zeros(2, np.int32)}  # fmt: skip
    accesses = accesses_of(records, remap, sites, initial={})
    errors, count = recorded_out_of_bounds(accesses, [{"name": "a", "space": "global", "dtype": "float32",
                                                        "shape": [100]}])  # fmt: skip
    assert count == 1
    assert errors == [{"kind": "out-of-bounds write", "thread": 4, "line": 5, "array": "a", "element": 100}]


def test_a_tie_among_last_writes_ends_with_the_value_memory_kept():
    from gpuviz.backends.gpu.decode import final_writes_last

    acc = {"thread": np.array([0, 1, 2, 3, 4]), "array": np.zeros(5, np.int16), "index": np.array([1, 1, 1, 1, 0]),
           "kind": np.array([1, 1, 1, 0, 1], np.int8), "value": np.array([1.0, 2.0, 3.0, 2.0, 9.0]),
           "time": np.array([5, 7, 7, 7, 7])}  # fmt: skip
    placed = final_writes_last(acc, {0: np.array([9.0, 2.0])})  # memory kept thread 1's 2.0
    assert placed["thread"].tolist() == [0, 2, 1, 3, 4] and placed["value"].tolist() == [1.0, 3.0, 2.0, 2.0, 9.0]
    kept = final_writes_last(acc, {0: np.array([9.0, 3.0])})  # the last write already holds it
    assert kept["thread"].tolist() == [0, 1, 2, 3, 4]
    acc["thread"], acc["kind"] = np.array([0, 1, 2, 2, 4]), np.array([1, 1, 0, 1, 1], np.int8)
    acc["value"] = np.array([1.0, 2.0, 3.0, 5.0, 9.0])  # thread 2 reads, then writes last: it may not pass its read
    assert final_writes_last(acc, {0: np.array([9.0, 2.0])})["thread"].tolist() == [0, 1, 2, 2, 4]


SHAPES = """from numba import cuda, float32, int32

@cuda.jit(device=True)
def inner(x, shape, kind):
    s = cuda.shared.array(shape, kind)
    s[0, 0] = x[0]

@cuda.jit(device=True)
def outer(x, shape, kind, n):
    inner(x, shape, kind)
    t = cuda.shared.array(n, int32)
    t[0] = 1

@cuda.jit
def k(x):
    N = 100
    dynamic = cuda.shared.array(0, float32)
    local = cuda.shared.array(N, float32)
    outer(x, (4, 8), float32, 16)
    outer(x, (4, 8), float32, 32)
    dynamic[0] = local[0]
"""


def test_shared_shapes_are_known_on_the_host_as_numba_knows_them():
    """Dynamic shared memory takes the launch's bytes; a device function's parameters take what its
    callers pass (through callers of callers); a literal local is that literal. A parameter whose
    calls pass different values is not known (the trace then sizes the array by its accesses)."""
    from gpuviz.instrument.gpu_rewrite import GpuRewriter, SharedSites
    from gpuviz.instrument.rewrite import build_program
    from gpuviz.run.api import python_function

    sites = SharedSites()
    build_program(python_function(SHAPES, "k"), GpuRewriter, accesses=True, sites=sites, ndims={"x": 1})
    described = {site.name: sites.describe(site, shared_bytes=64) for site in sites.sites}
    assert described == {"dynamic": ((16,), "float32"), "local": ((100,), "float32"), "s": ((4, 8), "float32"),
                         "t": (None, "int32")}  # fmt: skip


def test_an_unsized_shared_array_takes_the_extent_its_accesses_reach_and_says_so():
    from gpuviz.backends.gpu.backend import sized_by_accesses

    entries = [{"name": "x", "space": "global", "dtype": "float32", "shape": [8]},
               {"name": "t", "space": "shared", "dtype": "int32", "shape": [0]}]  # fmt: skip
    accesses = {"array": np.array([0, 1, 1, 0], np.int16), "index": np.array([7, 3, 9, 1], np.int64)}
    warnings = sized_by_accesses(entries, [1], accesses)
    assert entries[1]["shape"] == [10] and entries[0]["shape"] == [8]
    assert len(warnings) == 1 and "shared array t" in warnings[0] and "10 element(s)" in warnings[0]


def test_complex_values_decode_into_value_and_imag():
    records = {"code": np.array([2 << 6, (3 << 6) | 1], np.int64), "element": np.array([0, 1], np.int64),
               "value": np.array([1.5 - 2j, 0], np.complex128), "thread": np.array([0, 0]),
               "epoch": np.zeros(2, np.int32), "time": np.zeros(2, np.int64)}  # fmt: skip
    remap = np.arange(64)
    sites = np.zeros((512, 2), np.int64)
    inputs = np.array([5 + 1j, 6 - 3j], np.complex64)  # array 1 is read-only: its loads saw the inputs
    columns = accesses_of(records, remap, sites, {1: inputs})
    assert columns["value"].tolist() == [1.5, 6.0] and columns["imag"].tolist() == [-2.0, -3.0]
    real = accesses_of(dict(records, value=np.array([1.5, 0.0])), remap, sites, {})
    assert "imag" not in real


def test_a_kernel_whose_sites_each_name_one_array_gets_narrow_tags():
    from gpuviz.backends.gpu.layout import WIDE_SAME, choose_layout

    few = choose_layout([0, 1, 2], flat=True)  # vector add: codes 0-7 (marks, then sites) and the same bit
    assert few.narrow and few.flat and few.code_bits == 4 and few.time_bits == 12 and few.tag_dtype == np.uint16
    assert few.guard_ns == 1 << (10 + 5)  # a quarter of what 12 bits of 32 ns units hold
    assert not choose_layout([0, None], flat=False).narrow  # a device function's array parameter varies
    assert choose_layout([0] * 59, flat=False).time_bits == 9 and not choose_layout([0] * 60, flat=False).narrow
    wide = choose_layout([0, None], flat=False)
    assert wide.time_bits == 16 and wide.same == WIDE_SAME and wide.guard_ns == 1 << 19
    # narrow codes read back as the wide layout writes them: marks by kind, the time mark, each site's array
    layout = choose_layout([3, 33], flat=False)
    tags = (np.array([0, 2, 4, 5, 6 | layout.same], np.int64) << layout.time_bits) | np.array([7, 8, 9, 10, 11])
    code, low = layout.split(tags.astype(np.uint16))
    assert code.tolist() == [BARRIER << 6, (BARRIER << 6) | WARP_MARK, TIME_MARK << 6, (FIRST_SITE << 6) | 3,
                             ((FIRST_SITE + 1) << 6) | 33 | SAME]  # fmt: skip
    assert low.tolist() == [7, 8, 9, 10, 11]


def test_the_guard_is_a_layout_of_its_own_and_leaves_the_unguarded_hooks_alone():
    from gpuviz.backends.gpu.backend import _build_digest
    from gpuviz.backends.gpu.hooks import hook_source
    from gpuviz.backends.gpu.layout import RecordLayout, choose_layout

    for sites, flat in (([0, 1, 2], True), ([0, None], False)):
        plain, guarded = choose_layout(sites, flat), choose_layout(sites, flat, guarded=True)
        assert not plain.guarded and guarded.guarded and guarded.narrow == plain.narrow
        assert "_gv_inside" not in hook_source(plain) and "st[3] = 0" not in hook_source(plain)
        assert "_gv_inside(t, f" in hook_source(guarded) and "fault = t[2][3]" in hook_source(guarded)
        assert _build_digest(None, plain) != _build_digest(None, guarded)  # cached apart
    assert RecordLayout(True) == RecordLayout(True, guarded=False)


def test_narrow_times_come_back_across_their_wrap_and_their_time_marks():
    from gpuviz.backends.gpu.decode import _restore_time

    bits = 10
    before = np.array([5000, 5000, 5000], np.int64)
    after = np.array([5000 + 200, 5000 - 3, (123 << bits) | 17], np.int64)  # forward, a hair back, a time mark
    low = after & ((1 << bits) - 1)
    site = np.array([FIRST_SITE, FIRST_SITE, TIME_MARK])
    held = np.array([0, 0, 123], np.int64)
    assert _restore_time(before, low, site, held, bits).tolist() == after.tolist()
