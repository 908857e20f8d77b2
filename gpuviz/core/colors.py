"""Colour modes for the grid: a uint8 code per thread and a 256-entry lookup table (no Qt), and the
categorical palettes that tell blocks, warps and SMs apart."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gpuviz.core.marks import element_name
from gpuviz.core.numbers import number
from gpuviz.core.trace.columns import READ
from gpuviz.core.trace.model import Trace

MODES = ("block", "warp", "SM", "start time", "duration", "value written", "value read")
BY_ELEMENT = ("value read",)  # modes whose colours depend on the selected element
MAX_CATEGORIES = 12  # values read told apart by a colour each up to this many, on a ramp beyond
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


Legend = list[tuple[tuple[int, int, int], str]]  # (rgb, what the colour means)


@dataclass(frozen=True)
class Coloring:
    codes: np.ndarray  # uint8 per thread, 1..255
    lut: np.ndarray  # (256, 4) uint8 RGBA
    legend: Legend


def palette(name: str) -> np.ndarray:
    """A categorical palette's colours, (n, 3) uint8."""
    if name not in PALETTES:
        raise ValueError(f"unknown palette {name!r}; palettes: {', '.join(PALETTES)}")
    return PALETTES[name]


def coloring(trace: Trace, mode: str, element: tuple[int, int, int | None] | None = None,
             palette_name: str = DEFAULT_PALETTE, span: tuple[float, float] | None = None) -> Coloring:  # fmt: skip
    """The colours of a mode, categories in the palette named. "value read" colours each thread by the value
    it read of `element` (the selected one; without one, the element read most): threads that saw the same
    value share a colour, which makes a race's stale reads visible as one patch. `span`: the range a ramp
    covers, where two launches are drawn on one scale (the Compare view); else the launch's own."""
    unit = trace.meta.get("time_unit", "tick")
    unit = " cycles (model)" if unit == "tick" else f" {unit} (measured)"  # where the time comes from
    if mode in ("block", "warp", "SM"):
        return _categorical(trace, mode, palette(palette_name))
    if mode in RAMPS:
        label, marked = RAMPS[mode]
        colours = _gradient(ramp_values(trace, mode), label, unit="" if mode == "value written" else unit, span=span)
        return _unrecorded_marked(trace, colours) if marked else colours
    if mode == "value read":
        return _values_read(trace, element, palette(palette_name))
    raise ValueError(f"unknown colour mode {mode!r}; modes: {', '.join(MODES)}")


RAMPS = {"start time": ("started at", False), "duration": ("ran", False), "value written": ("value written", True)}


def ramp_values(trace: Trace, mode: str) -> np.ndarray:
    """Per thread, the number a ramp mode colours by (NaN: none)."""
    if mode == "start time":
        return trace.threads["t_start"].astype(float)
    if mode == "duration":
        return trace.threads["t_end"].astype(float) - trace.threads["t_start"]
    return last_written_values(trace)


def shared_span(traces: list[Trace], mode: str) -> tuple[float, float] | None:
    """The range of a ramp mode's numbers over several launches (None: not a ramp, or no numbers)."""
    if mode not in RAMPS:
        return None
    values = [v[np.isfinite(v)] for v in (ramp_values(t, mode) for t in traces)]
    values = [v for v in values if len(v)]
    if not values:
        return None
    return min(float(v.min()) for v in values), max(float(v.max()) for v in values)


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


def _values_read(trace: Trace, element: tuple[int, int, int | None] | None, colours: np.ndarray) -> Coloring:
    values, name = first_read_values(trace, element)
    known = np.isfinite(values)
    distinct = np.unique(values[known])
    if len(distinct) > min(MAX_CATEGORIES, len(colours)):  # a colour each while the palette has one
        return _unrecorded_marked(trace, _gradient(values, f"read {name} =", nothing=f"did not read {name}",
                                                   ends=BLUE_TO_ORANGE))  # fmt: skip
    codes = np.full(len(values), NOTHING, np.uint8)
    codes[known] = (np.searchsorted(distinct, values[known]) + 1).astype(np.uint8)
    lut = _base_lut()
    lut[1 : len(colours) + 1, :3] = colours
    counts = np.bincount(codes[known], minlength=len(distinct) + 1)
    legend = [(tuple(int(c) for c in colours[k]), f"read {name} = {number(v)} ({number(int(counts[k + 1]))} threads)")
              for k, v in enumerate(distinct)]  # fmt: skip
    legend.append(((110, 110, 110), f"did not read {name}"))
    return _unrecorded_marked(trace, Coloring(codes, lut, legend))


def first_read_values(trace: Trace, element: tuple[int, int, int | None] | None) -> tuple[np.ndarray, str]:
    """Per thread, the first value it read of the element (NaN where it read none), and the element's name.
    Without an element, the one read most (a race's element, typically)."""
    values = np.full(trace.n_threads, np.nan)
    acc = trace.accesses
    if acc is None or not len(acc["kind"]):
        return values, "an element"
    reads = np.flatnonzero(acc["kind"] == READ)
    if element is None and len(reads):
        keys = acc["array"][reads].astype(np.int64) << 40 | acc["index"][reads]
        unique, counts = np.unique(keys, return_counts=True)
        top = int(unique[np.argmax(counts)])
        element = (top >> 40, top & ((1 << 40) - 1), None)
    if element is None:
        return values, "an element"
    aid, index, block = element
    mine = reads[(acc["array"][reads] == aid) & (acc["index"][reads] == index)]
    if block is not None:
        mine = mine[acc["thread"][mine] // int(np.prod(trace.block)) == block]
    threads = acc["thread"][mine]
    firsts = np.unique(threads, return_index=True)[1]  # rows are in the order the reads happened
    values[threads[firsts]] = acc["value"][mine[firsts]]
    return values, element_name(trace, element)


DARK_TO_YELLOW = ((68, 1, 84), (253, 231, 37))  # the ramp of times and values written: low values recede
BLUE_TO_ORANGE = ((86, 180, 233), (230, 159, 0))  # values read: every value bright on the dark ground (CVD safe)


def _gradient(values: np.ndarray, label: str, nothing: str = "nothing written", unit: str = "",
              ends: tuple = DARK_TO_YELLOW, span: tuple[float, float] | None = None) -> Coloring:  # fmt: skip
    known = np.isfinite(values)
    codes = np.full(len(values), NOTHING, np.uint8)
    if known.any():
        low, high = float(values[known].min()), float(values[known].max())
        if span is not None:
            low, high = min(low, span[0]), max(high, span[1])
        scaled = (values[known] - low) / (high - low) if high > low else np.zeros(int(known.sum()))
        codes[known] = (1 + scaled * 252).astype(np.uint8)
    else:
        low = high = 0.0
    lut = _base_lut()
    ramp = np.linspace(0, 1, 253)[:, None]
    lut[1:254, :3] = (np.array(ends[0]) * (1 - ramp) + np.array(ends[1]) * ramp).astype(np.uint8)
    shown = [(tuple(int(c) for c in lut[1, :3]), f"{label} {number(low)}{unit}")]
    if number(high) != number(low):  # one value, or two that read the same: never "x 2 ... x 2"
        shown.append((tuple(int(c) for c in lut[253, :3]), f"{label} {number(high)}{unit}"))
    legend = [*shown, ((110, 110, 110), nothing)] if not known.all() else shown
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


def distinct_entries(legend: Legend) -> Legend:
    """A legend that says each thing once: entries whose words repeat an earlier one are left out (a
    swatch beside words already explained would say nothing new, or contradict them)."""
    seen: set[str] = set()
    kept = []
    for rgb, label in legend:
        if label not in seen:
            seen.add(label)
            kept.append((tuple(int(c) for c in rgb), str(label)))
    return kept


NUMBERED = re.compile(r"^(?P<words>.*\S) (?P<number>-?\d[\d,.]*)(?P<rest>(?:\s.*)?)$")  # "written by block 3"


def legend_groups(legend: Legend) -> list[tuple[str, Legend]]:
    """The legend's entries said once each, with a run of numbered ones under their shared words:
    "block 0", "block 1", ... become the heading "block" over swatches "0", "1", ... (a picture's
    legend of twelve blocks takes one line instead of three)."""
    groups: list[tuple[str, Legend]] = []
    for rgb, label in distinct_entries(legend):
        found = NUMBERED.match(label)
        words, short = (found["words"], found["number"] + found["rest"]) if found else ("", label)
        if words and groups and groups[-1][0] == words:
            groups[-1][1].append((rgb, short))
        else:
            groups.append((words, [(rgb, short)]))
    return [group if len(group[1]) > 1 else _said_whole(group) for group in groups]


def _said_whole(group: tuple[str, Legend]) -> tuple[str, Legend]:
    """A group of one says its words in full ("SM 3"), not a heading over a lone swatch."""
    words, [(rgb, short)] = group
    return "", [(rgb, f"{words} {short}".strip())]
