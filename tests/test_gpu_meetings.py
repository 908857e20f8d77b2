"""Syncwarps of part of a warp on GPU traces (backends/gpu/meetings.py): the lanes each left out and the warp
epochs they may have had, in the simulator's `partial_syncwarps` layout. Pure NumPy: no GPU needed."""

import numpy as np

from gpuviz.backends.gpu import meetings
from gpuviz.backends.gpu.meetings import partial_syncwarps
from gpuviz.core.trace.columns import set_epoch

FULL = 0xFFFFFFFF


def marks(*by_lane: list[int], block_epoch: int = 0, first: int = 0) -> dict[str, np.ndarray]:
    """Syncwarp marks of lanes first, first+1, ...: each lane's masks in its order (epochs counted here)."""
    thread, epoch, mask = [], [], []
    for lane, masks in enumerate(by_lane):
        for count, m in enumerate(masks):
            thread.append(first + lane)
            epoch.append(set_epoch(set_epoch(0, "block", block_epoch), "warp", count))
            mask.append(m)
    return {"thread": np.array(thread), "epoch": np.array(epoch), "mask": np.array(mask)}


def outside(entry) -> dict[int, list[int]]:
    lanes: dict[int, list[int]] = {}
    for lane, epoch in entry[2]:
        lanes.setdefault(lane, []).append(epoch)
    return lanes


def test_a_syncwarp_every_lane_reaches_leaves_nobody_out():
    assert partial_syncwarps(marks(*[[FULL, FULL]] * 32), per_block=64) is None
    assert partial_syncwarps(marks(*[[0xFFFF]] * 16), per_block=16) is None  # a block's only warp has 16 lanes
    empty = {name: np.zeros(0, np.int64) for name in ("thread", "epoch", "mask")}
    assert partial_syncwarps(empty, per_block=32) is None


def test_half_a_warp_meeting_lists_the_other_half_at_the_epoch_it_had():
    (entry,) = partial_syncwarps(marks(*[[0xFFFF]] * 16, *[[]] * 16, block_epoch=3, first=32), per_block=64)
    assert entry[:2] == [32, 3]
    assert outside(entry) == {lane: [0] for lane in range(16, 32)}


def test_a_tree_of_syncwarps_inside_the_if_bounds_the_epochs_by_the_meetings_shared_before():
    """`if t < step: ...; syncwarp()` for step 32, 16, 8: lanes 16-31 left the second meeting after the
    first (epoch 1, as the simulator, whose lanes run in step, notes it); lanes 8-15 the third after two."""
    lanes = [[FULL] * 3] * 8 + [[FULL] * 2] * 8 + [[FULL]] * 16
    second, third = partial_syncwarps(marks(*lanes), per_block=32)
    assert outside(second) == {lane: [1] for lane in range(16, 32)}
    assert outside(third) == {**{lane: [2] for lane in range(8, 16)}, **{lane: [1] for lane in range(16, 32)}}


def test_halves_that_sync_apart_may_each_have_passed_their_own():
    """Lanes 0-15 sync with 0xFFFF while 16-31 sync with 0xFFFF0000: which came first is not in the log."""
    first, second = partial_syncwarps(marks(*[[0xFFFF]] * 16, *[[0xFFFF0000]] * 16), per_block=32)
    assert outside(first) == {lane: [0, 1] for lane in range(16, 32)}
    assert outside(second) == {lane: [0, 1] for lane in range(16)}


def test_an_if_and_its_else_each_with_a_syncwarp_are_one_meeting():
    assert partial_syncwarps(marks(*[[FULL]] * 32), per_block=32) is None


def test_past_the_limit_no_warp_epoch_is_trusted(monkeypatch):
    monkeypatch.setattr(meetings, "MAX_PARTIAL_SYNCS", 1)
    two_warps = {name: np.concatenate([a[name], b[name]]) for a, b in
                 [(marks(*[[0xFFFF]] * 16, *[[]] * 16), marks(*[[0xFFFF]] * 16, *[[]] * 16, first=32))]
                 for name in a}  # fmt: skip
    assert partial_syncwarps(two_warps, per_block=64) == "too many"
