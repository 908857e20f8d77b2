"""Where in a replay, as people write it: a frame (120), a fraction of the run (0.5) or a time (`--at t=1240`,
the first frame at or after that time), and which element: `--element 'array[0]'`, `--element 'C[3,4]'`.
One-line errors for anything else. `gpuviz render`, clips and the notebook all place their cursor here."""

from __future__ import annotations

import re

import numpy as np

from gpuviz.core.errors import GpuvizError


def frame_at_time(text: str, frames: int, times: np.ndarray | None) -> int:
    """The first replay frame at or after `t=TIME` (frame k follows the k-th event, so +1)."""
    if times is None:
        raise GpuvizError(f"--at {text!r}: this view has no times; give a frame (120) or a fraction (0.5)")
    try:
        when = float(text.strip()[2:])
    except ValueError:
        raise GpuvizError(f"--at {text!r}: give a time as t=1240") from None
    return min(max(0, frames - 1), int(np.searchsorted(times, when, side="left")) + 1)


def parse_element(text: str, arrays: list[dict]) -> tuple[int, int]:
    """(array id, C-order element) from `name[i]` or `name[i, j, ...]`."""
    match = re.fullmatch(r"\s*(\w+)\s*\[([\d,\s]+)\]\s*", text)
    names = [a["name"] for a in arrays]
    if not match:
        raise GpuvizError(f"--element {text!r}: write an array element as NAME[INDEX], e.g. array[0] or C[3,4]")
    name, indices = match.group(1), [int(v) for v in match.group(2).split(",") if v.strip()]
    if name not in names:
        raise GpuvizError(f"--element {text!r}: no array {name!r}; this launch has {', '.join(names) or 'none'}")
    shape = tuple(arrays[names.index(name)]["shape"]) or (1,)
    if len(indices) != len(shape) or any(not 0 <= i < n for i, n in zip(indices, shape)):
        raise GpuvizError(f"--element {text!r}: {name} has shape {shape}")
    return names.index(name), int(np.ravel_multi_index(indices, shape))


def frame_at(at: str | int | float | None, count: int, what: str = "--at", times=None) -> int:
    """A frame index from an index (3), a fraction of the frames (0.5, 1.0) or, in the replay, a time
    (t=1240: see core/cursor.py); None is the last frame."""
    last = max(0, count - 1)
    if at is None:
        return last
    text = str(at).strip()
    if text.startswith("t="):
        return frame_at_time(text, count, times)
    try:
        value = float(text) if ("." in text or isinstance(at, float)) else int(text)
    except ValueError:
        raise GpuvizError(f"{what} {at!r}: give a frame index (0 to {last}) or a fraction like 0.5") from None
    if isinstance(value, float):
        if not 0.0 <= value <= 1.0:
            raise GpuvizError(f"{what} {at!r}: a fraction of the run is 0.0 to 1.0")
        return round(value * last)
    if not 0 <= value <= last:
        raise GpuvizError(f"{what} {at!r}: this launch has {count} frames, 0 to {last} (or give a fraction like 0.5)")
    return value


MAX_CLIP_FRAMES = 300  # a replay has a frame per event: longer stretches are sampled evenly


def frame_range(count: int, start=None, stop=None) -> range:
    """The frames from `start` to `stop`, both included (frame indices or fractions like 0.5), every
    one of them, or evenly spread ones when there are more than MAX_CLIP_FRAMES."""
    first = frame_at(start if start is not None else 0, count, "--from")
    last = frame_at(stop, count, "--to")
    if last < first:
        raise GpuvizError(f"--from {start} comes after --to {stop}: the clip would have no frame")
    step = -(-(last + 1 - first) // MAX_CLIP_FRAMES)
    return range(first, last + 1, step)
