"""Where in a replay, as people write it beyond a frame or a fraction (app/render.py: frame_at):
`--at t=1240` (the first frame at or after that time), and which element: `--element 'array[0]'`,
`--element 'C[3,4]'`. One-line errors for anything else."""

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
