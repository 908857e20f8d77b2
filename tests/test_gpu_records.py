"""Decoding the GPU recorder's buffers: pure NumPy, no GPU needed."""

import numpy as np

from gpuviz.backends.gpu.hooks import EMPTY
from gpuviz.backends.gpu.records import decode_log, place_in_time, thread_times, unwrap_times


def test_low_time_bits_unwrap_around_their_reference_even_across_a_wrap():
    reference = np.array([(5 << 32) + 100, (5 << 32) + 0xFFFFFF00, (7 << 32) + 10], np.uint64)
    full = np.array([(5 << 32) + 150, (6 << 32) + 0x10, (7 << 32) + 2], np.int64)  # later, later across a wrap, earlier
    np.testing.assert_array_equal(unwrap_times(full & 0xFFFFFFFF, reference), full)


def test_threads_span_their_warps_first_to_last_reading():
    block_start = np.array([1000, 2000], np.uint64)
    warp_start = np.array([1010, 990, 2000, 2005], np.uint64)  # warp 1 read the timer before thread 0 did
    warp_end = np.array([1500, 1400, 2600, 2100], np.uint64)
    block_of_thread = np.repeat([0, 1], 4)
    warp_of_thread = np.repeat([0, 1, 2, 3], 2)
    start, end, first = thread_times(block_start, warp_start, warp_end, block_of_thread, warp_of_thread)
    assert first == 990
    assert start.tolist() == [20, 20, 0, 0, 1010, 1010, 1015, 1015]
    assert end.tolist() == [510, 510, 410, 410, 1610, 1610, 1110, 1110]
    start, _, first = thread_times(block_start, None, warp_end, block_of_thread, warp_of_thread)
    assert first == 1000 and start.tolist() == [0] * 4 + [1000] * 4


def test_accesses_are_put_in_time_order_keeping_the_log_order_of_ties():
    accesses = {"thread": np.array([1, 0, 0, 1], np.int32), "kind": np.array([0, 0, 1, 1], np.int8),
                "time": np.array([30, 10, 10, 20], np.uint32)}  # fmt: skip
    placed = place_in_time(accesses, np.array([5], np.uint64), np.zeros(2, np.int64), first=5)
    assert placed["time"].tolist() == [5, 5, 15, 25]
    assert placed["thread"].tolist() == [0, 0, 1, 1] and placed["kind"].tolist() == [0, 1, 1, 0]


def test_the_timer_step_is_the_median_change_between_readings():
    from gpuviz.backends.gpu.timer import step_of

    assert step_of(np.array([0, 0, 32, 32, 64, 96, 96, 1000], np.uint64)) == 32
    assert step_of(np.array([5, 5, 5], np.uint64)) is None


def _log(groups, size=8):
    """Log columns holding groups given as (first slot, warp, mask, meta, time, [(element, value) per lane])."""
    columns = [np.zeros(size, np.uint32), np.zeros(size, np.float32), np.zeros(size, np.uint32),
               np.zeros(size, np.uint32), np.full(size, EMPTY, np.uint32), np.zeros(size, np.uint32)]  # fmt: skip
    for first, warp, mask, meta, time, lanes in groups:
        for k, (element, value) in enumerate(lanes):
            columns[0][first + k], columns[1][first + k] = element, value
        columns[2][first], columns[3][first], columns[4][first], columns[5][first] = warp, mask, meta, time
    return columns


def test_groups_of_lanes_decode_to_one_row_a_lane_with_the_groups_thread_ids():
    remap = np.full(64, -1, np.int64)
    remap[[0, 33]] = [0, 1]
    write_a = (7 << 17) | (2 << 8) | (0 << 2) | 1  # line 7, epoch 2, array id 0, a write
    read_s = (9 << 17) | (33 << 2)  # line 9, array id 33 (a shared array), a read
    columns = _log([(0, 3, 0b1010, write_a, 500, [(10, 1.5), (11, 2.5)]),  # warp 3 = block 1, warp 1: lanes 1, 3
                    (5, 0, 1 << 31, read_s, 400, [(4, 7.0)])])  # fmt: skip
    acc = decode_log(columns, remap, warps_per_block=2, per_block=64)
    assert acc["thread"].tolist() == [64 + 32 + 1, 64 + 32 + 3, 31]
    assert acc["index"].tolist() == [10, 11, 4] and acc["value"].tolist() == [1.5, 2.5, 7.0]
    assert acc["array"].tolist() == [0, 0, 1] and acc["kind"].tolist() == [1, 1, 0]
    assert acc["line"].tolist() == [7, 7, 9] and acc["epoch"].tolist() == [2, 2, 0]
    assert acc["time"].tolist() == [500, 500, 400]


def test_a_logged_element_past_the_end_is_reported_as_out_of_bounds():
    from gpuviz.core.analysis.memcheck import recorded_out_of_bounds

    remap = np.full(64, -1, np.int64)
    remap[0] = 0
    columns = _log([(0, 0, 0b11000, (5 << 17) | 1, 0, [(99, 1.0), (100, 1.0)])])  # lanes 3 and 4 write at line 5
    accesses = decode_log(columns, remap, warps_per_block=4, per_block=128)
    errors, count = recorded_out_of_bounds(accesses, [{"name": "a", "space": "global", "dtype": "float32",
                                                        "shape": [100]}])  # fmt: skip
    assert count == 1
    assert errors == [{"kind": "out-of-bounds write", "thread": 4, "line": 5, "array": "a", "element": 100}]
