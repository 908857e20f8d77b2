"""Where in a replay, as people write it: `--at 120` (a frame: the cursor after 120 events), `--at 0.5`
(a fraction of the run), `--at t=1240` (the first frame at or after that time), and which element:
`--element 'array[0]'`, `--element 'C[3,4]'`. One-line errors for anything else."""

from __future__ import annotations

import re

import numpy as np

from gpuviz.core.errors import GpuvizError


def parse_at(text: str, frames: int, times: np.ndarray | None = None) -> int:
    """A frame index in [0, frames - 1] from `N`, `0.F` or `t=T`."""
    text = text.strip()
    last = max(0, frames - 1)
    try:
        if text.startswith("t="):
            if times is None:
                raise GpuvizError(f"--at {text!r}: this view has no times; give a frame (120) or a fraction (0.5)")
            return min(last, int(np.searchsorted(times, float(text[2:]), side="left")) + 1)
        if "." in text:
            fraction = float(text)
            if not 0.0 <= fraction <= 1.0:
                raise ValueError
            return round(fraction * last)
        frame = int(text)
    except ValueError:
        raise GpuvizError(f"--at {text!r}: give a frame (e.g. 120), a fraction from 0.0 to 1.0 (0.5) "
                          f"or a time (t=1240)") from None  # fmt: skip
    if not 0 <= frame <= last:
        raise GpuvizError(f"--at {frame}: this trace has frames 0 to {last}")
    return frame


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
