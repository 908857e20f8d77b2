"""Colour modes for the grid: a uint8 code per thread and a 256-entry lookup table (no Qt), and the
categorical palettes that tell blocks, warps and SMs apart."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.trace.model import Trace

MODES = ("block", "warp", "SM", "start time", "value written")
NOT_RUN, NOT_RECORDED, NOTHING = 0, 254, 255  # codes: not started yet; accesses not recorded; no value to show
# Okabe and Ito's colours for colour-blind readers (2008), without their black, which the dark theme's
# background and the not-yet-run cells would swallow: orange, sky blue, bluish green, yellow, blue,
# vermillion, reddish purple.
OKABE_ITO = np.array([(230, 159, 0), (86, 180, 233), (0, 158, 115), (240, 228, 66), (0, 114, 178), (213, 94, 0),
                      (204, 121, 167)], np.uint8)  # fmt: skip
# Paul Tol's medium-contrast colours (light and dark pairs, colour-blind safe and apart in grey too), ordered
# so that neighbours differ in lightness: what survives a washed-out projector once hue is gone.
HIGH_CONTRAST = np.array([(0xEE, 0xCC, 0x66), (0x99, 0x44, 0x55), (0x66, 0x99, 0xCC), (0x00, 0x44, 0x88),
                          (0xEE, 0x99, 0xAA), (0x99, 0x77, 0x00)], np.uint8)  # fmt: skip
PALETTES = {"colour-blind safe": OKABE_ITO, "high contrast": HIGH_CONTRAST}
DEFAULT_PALETTE = "colour-blind safe"
# the grid's colours of its own, which no palette colour may look like ("not recorded": darker than
# "nothing written", and not a colour of the ramp)
GRID_COLOURS = {NOT_RUN: (38, 38, 46), NOTHING: (110, 110, 110), NOT_RECORDED: (62, 58, 80)}
RACE = (196, 18, 47)  # elements written by several threads: always drawn hatched too, never told by colour alone


@dataclass(frozen=True)
class Coloring:
    codes: np.ndarray  # uint8 per thread, 1..255
    lut: np.ndarray  # (256, 4) uint8 RGBA
    legend: list[tuple[tuple[int, int, int], str]]


def palette(name: str) -> np.ndarray:
    """A categorical palette's colours, (n, 3) uint8."""
    if name not in PALETTES:
        raise ValueError(f"unknown palette {name!r}; palettes: {', '.join(PALETTES)}")
    return PALETTES[name]


def coloring(trace: Trace, mode: str, palette_name: str = DEFAULT_PALETTE) -> Coloring:
    if mode in ("block", "warp", "SM"):
        return _categorical(trace, mode, palette(palette_name))
    if mode == "start time":
        return _gradient(trace.threads["t_start"].astype(float), f"start ({trace.meta.get('time_unit', 'tick')})")
    if mode == "value written":
        return _unrecorded_marked(trace, _gradient(last_written_values(trace), "value written"))
    raise ValueError(f"unknown colour mode {mode!r}; modes: {', '.join(MODES)}")


def _categorical(trace: Trace, mode: str, colours: np.ndarray) -> Coloring:
    per_block, count = int(np.prod(trace.block)), len(colours)
    if mode == "block":  # a code per block, repeated: no id per thread (16.8 M of them in NVIDIA's vector add)
        blocks = trace.n_threads // per_block
        codes = np.repeat((np.arange(blocks) % count + 1).astype(np.uint8), per_block)
        distinct = blocks
    else:
        ids = trace.threads["warp" if mode == "warp" else "sm"]
        codes = (ids % count + 1).astype(np.uint8)
        distinct = int(ids.max()) + 1 if len(ids) else 0
    lut = _base_lut()
    lut[1 : count + 1, :3] = colours
    suffix = f" (and every {count}th after)" if distinct > count else ""
    legend = [(tuple(int(c) for c in colours[k]), f"{mode} {k}{suffix if k == 0 else ''}")
              for k in range(min(distinct, count))]  # fmt: skip
    return Coloring(codes, lut, legend)


def _gradient(values: np.ndarray, label: str) -> Coloring:
    known = np.isfinite(values)
    codes = np.full(len(values), NOTHING, np.uint8)
    if known.any():
        low, high = float(values[known].min()), float(values[known].max())
        scaled = (values[known] - low) / (high - low) if high > low else np.zeros(int(known.sum()))
        codes[known] = (1 + scaled * 252).astype(np.uint8)
    else:
        low = high = 0.0
    lut = _base_lut()
    ramp = np.linspace(0, 1, 253)
    lut[1:254, 0] = (68 + ramp * (253 - 68)).astype(np.uint8)  # dark blue to yellow
    lut[1:254, 1] = (1 + ramp * (231 - 1)).astype(np.uint8)
    lut[1:254, 2] = (84 + ramp * (37 - 84)).astype(np.uint8)
    legend = [(tuple(int(c) for c in lut[1, :3]), f"{label} {low:g}"), (tuple(int(c) for c in lut[253, :3]),
              f"{label} {high:g}"), ((110, 110, 110), "nothing written")]  # fmt: skip
    return Coloring(codes, lut, legend)


def _unrecorded_marked(trace: Trace, colours: Coloring) -> Coloring:
    """Threads of blocks whose accesses the trace does not hold (a launch too big for every access)
    get a colour of their own: they wrote, but the trace cannot say what."""
    recorded = trace.meta.get("recorded_blocks")
    if recorded is None or trace.accesses is None:
        return colours
    per_block = int(np.prod(trace.block))
    kept = np.zeros(trace.n_threads // per_block, bool)
    kept[np.asarray(recorded, np.int64)] = True
    codes = np.where(np.repeat(kept, per_block), colours.codes, np.uint8(NOT_RECORDED))
    legend = [*colours.legend, (tuple(int(c) for c in colours.lut[NOT_RECORDED, :3]), "accesses not recorded")]
    return Coloring(codes, colours.lut, legend)


def _base_lut() -> np.ndarray:
    lut = np.zeros((256, 4), np.uint8)
    lut[:, 3] = 255
    for code, colour in GRID_COLOURS.items():
        lut[code, :3] = colour
    return lut


def last_written_values(trace: Trace) -> np.ndarray:
    """Per thread, the last value it wrote to any array (NaN when it wrote none)."""
    values = np.full(trace.n_threads, np.nan)
    if trace.accesses is None:
        return values
    acc = trace.accesses
    writes = acc["kind"] != 0
    values[acc["thread"][writes]] = acc["value"][writes]  # later rows overwrite earlier ones
    return values
