"""The SM timeline without Qt: a bar per block on a row of its SM, from its first thread's start to its last
thread's end, coloured by wave (core/analysis/timeline.py, the app's timeline view's functions), over a time
axis with its unit. In the replay a line marks the cursor's time and the blocks not yet started are dimmed."""

from __future__ import annotations

import math

import numpy as np

from gpuviz.core.analysis.timeline import (
    bar_legend,
    block_slots,
    block_spans,
    block_waves,
    most_at_once,
    time_axis_words,
)
from gpuviz.core.frames import REPLAY
from gpuviz.core.numbers import number
from gpuviz.images.canvas import Look, ViewImage, blank, outline, write_at

LEFT, BOTTOM = 44, 32  # room for the SM numbers, and for the time axis's ticks, numbers and label
AXIS_TEXT = 11
CURSOR = (255, 255, 255)
TITLE = "SM timeline: a bar per block, from its first thread's start to its last one's end, coloured by wave"


class TimelinePicture:
    """Draws the SM timeline of an app state; the bars' places are worked out once per trace."""

    def __init__(self) -> None:
        self._trace = None

    def _prepare(self, trace) -> None:
        if trace is not self._trace:
            self.sm, self.start, self.end = block_spans(trace)
            self.waves = block_waves(trace)
            self.slots = block_slots(self.sm, self.start, self.end)
            self.used, self.row = np.unique(self.sm, return_inverse=True)
            self.lanes = int(self.slots.max()) + 1
            self.at_once = most_at_once(self.sm, self.start, self.end)
            self._trace = trace

    def draw(self, state, box: tuple[int, int], look: Look) -> ViewImage:
        trace = state.trace
        self._prepare(trace)
        width, height = box
        rgb = blank(box, look.background)
        plot_w, plot_h = max(1, width - LEFT - 16), max(1, height - BOTTOM - 4)
        t0, t1 = int(self.start.min()), max(int(self.end.max()), int(self.start.min()) + 1)
        x_of = lambda t: LEFT + ((np.asarray(t, np.float64) - t0) * (plot_w - 1) / (t1 - t0)).astype(np.int64)
        row_h = plot_h / len(self.used)
        lane_h = row_h * 0.9 / self.lanes
        x0, x1 = x_of(self.start), np.maximum(x_of(self.end), x_of(self.start) + 1)
        y0 = (4 + self.row * row_h + row_h * 0.05 + self.slots * lane_h).astype(np.int64)
        y1 = np.maximum(y0 + 1, (y0 + lane_h * 0.9).astype(np.int64))
        palette = state.palette_colours()
        colour = palette[self.waves % len(palette)]
        now = self._time_now(state)
        if now is not None:  # blocks not started by the cursor's time: dimmed
            colour = np.where((self.start > now)[:, None], colour // 4 + 20, colour).astype(np.uint8)
        for b in range(len(self.sm)):
            rgb[y0[b] : y1[b], x0[b] : x1[b]] = colour[b]
        per_block = int(np.prod(trace.block))
        if state.selected >= 0:
            b = state.selected // per_block
            outline(rgb, int(x0[b]), int(y0[b]), int(x1[b] - x0[b]), int(y1[b] - y0[b]), CURSOR, 2)
        if now is not None:
            rgb[4 : 4 + plot_h, int(x_of(now)) : int(x_of(now)) + 2] = CURSOR
        self._axes(rgb, row_h, t0, t1, trace.meta.get("time_unit", "tick"), look.muted)

        def block_at(px: float, py: float) -> int:
            hit = np.flatnonzero((x0 <= px) & (px < x1 + 1) & (y0 <= py) & (py < y1 + 1))
            return int(hit[0]) if len(hit) else -1

        def pick(px: float, py: float):
            b = block_at(px, py)
            return ("thread", b * per_block) if b >= 0 else None

        def hover(px: float, py: float) -> str:
            b = block_at(px, py)
            return "" if b < 0 else (f"block {b} on SM {int(self.sm[b])}, wave {int(self.waves[b])}: "
                                     f"{int(self.start[b]):,} to {int(self.end[b]):,}")  # fmt: skip

        outlines = [(CURSOR, "the selected thread's block")] if state.selected >= 0 else []
        return ViewImage(rgb, self._caption(state, now), self._legend(state, palette), pick, hover, TITLE, outlines)

    def _caption(self, state, now: int | None) -> str:
        """The app's timeline words, and where the cursor is in time."""
        waves = int(self.waves.max()) + 1
        said = (f"{len(self.sm):,} blocks on {len(self.used)} SMs in {waves} wave(s); up to {self.at_once} blocks "
                "on one SM at once.")  # fmt: skip
        if now is None:
            return said
        unit = state.trace.meta.get("time_unit", "tick")
        time = f"{number(now)} cycles (model)" if unit == "tick" else f"{number(now)} {unit} (measured)"
        return f"{said} White line: the cursor, at {time}."

    def _legend(self, state, palette: np.ndarray) -> list:
        legend = bar_legend(int(self.waves.max()) + 1, palette)
        if self._time_now(state) is not None:
            legend.append((tuple(int(c) for c in palette[0] // 4 + 20), "not started yet (dimmed)"))
        return legend

    def _time_now(self, state) -> int | None:
        if state.order != REPLAY or state.replay is None:
            return None
        return int(state.replay.time_at(state.frame))

    def _axes(self, rgb: np.ndarray, row_h: float, t0: int, t1: int, unit: str, colour) -> None:
        """SM numbers on the left (at most about 16), the time axis below: ticks at round times, their
        numbers, and the axis's label with its unit (core/analysis/timeline.py: time_axis_words)."""
        step = max(1, -(-len(self.used) // 16))
        labels = [(f"SM {int(sm)}", colour, (2, max(0, 4 + int((r + 0.5) * row_h) - 6)))
                  for r, sm in enumerate(self.used) if r % step == 0]  # fmt: skip
        height, width = rgb.shape[:2]
        axis = height - BOTTOM
        plot_w = max(1, width - LEFT - 16)
        rgb[axis : axis + 1, LEFT : LEFT + plot_w] = colour
        for tick in round_ticks(t0, t1, max(2, plot_w // 70)):
            x = LEFT + int((tick - t0) * (plot_w - 1) / (t1 - t0))
            rgb[axis : axis + 4, x : x + 1] = colour
            text = number(tick)
            labels.append((text, colour, (max(0, x - len(text) * 3), axis + 4)))
        words = time_axis_words(unit)
        labels.append((words, colour, (LEFT + plot_w // 2 - len(words) * 3, axis + 4 + AXIS_TEXT + 2)))
        write_at(rgb, labels, size=AXIS_TEXT)


def round_ticks(t0: float, t1: float, most: int) -> list[float]:
    """At most about `most` round times (1, 2 or 5 times a power of ten apart) from t0 to t1."""
    span = max(t1 - t0, 1e-9)
    raw = span / max(1, most)
    power = 10 ** math.floor(math.log10(raw))
    spacing = next(k * power for k in (1, 2, 5, 10) if k * power >= raw)
    first = math.ceil(t0 / spacing) * spacing
    return [first + k * spacing for k in range(int((t1 - first) // spacing) + 1)]
