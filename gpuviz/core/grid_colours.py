"""The grid's colours in the replay: each thread's colour in one of four looks, one per thread state, so
that a frame is still one image of uint8 codes (code = look * 64 + colour). Qt-free: the app's grid and
the notebook's pictures draw the same codes."""

from __future__ import annotations

import numpy as np

from gpuviz.core.replay import AT_BARRIER, FINISHED, NOT_STARTED, RUNNING

LOOK = np.zeros(4, np.uint8)
LOOK[NOT_STARTED], LOOK[RUNNING], LOOK[AT_BARRIER], LOOK[FINISHED] = 0, 64, 128, 192


def replay_colours(codes: np.ndarray, lut: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The colours in 64 levels, and a lookup table with the four looks of the thread states:
    not started dark, running as is, waiting at a barrier near white, finished dimmed."""
    wide = int(codes.max(initial=0)) > 63
    levels = np.arange(256)
    if wide:  # a ramp (codes 1..253) in 61 levels; its two special codes (not recorded, nothing) kept apart
        to_small = np.concatenate([[0], 1 + (levels[1:254] - 1) * 60 // 252, [62, 63]])
        source = np.concatenate([[0], 1 + (np.arange(1, 62) - 1) * 252 // 60, [254, 255]])
    else:
        to_small, source = levels.clip(0, 63), np.arange(64)
    small = to_small.astype(np.uint8)[codes]  # one lookup per thread, no wide temporaries
    base = lut[source].astype(np.float64)
    replay = np.zeros((256, 4), np.uint8)
    replay[:, 3] = 255
    replay[0:64] = lut[0]  # not started: the not-yet-run colour
    replay[64:128] = base
    replay[128:192, :3] = base[:, :3] * 0.15 + 255 * 0.85  # near white: no palette colour is
    replay[192:256, :3] = base[:, :3] * 0.4 + 10
    return small, replay
