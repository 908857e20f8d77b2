"""The SM timeline without Qt: a bar per block on a row of its SM, from its first thread's start to its last
thread's end, coloured by wave (core/analysis/timeline.py, the app's timeline view's functions). In the
replay a line marks the cursor's time and the blocks not yet started are dimmed."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.timeline import block_slots, block_spans, block_waves
from gpuviz.core.frames import REPLAY
from gpuviz.images.canvas import Look, ViewImage, blank, outline, write_at

LEFT, BOTTOM = 44, 22  # room for the SM numbers and the time axis
CURSOR = (255, 255, 255)


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
            self._trace = trace

    def draw(self, state, box: tuple[int, int], look: Look) -> ViewImage:
        trace = state.trace
        self._prepare(trace)
        width, height = box
        rgb = blank(box, look.background)
        plot_w, plot_h = max(1, width - LEFT - 8), max(1, height - BOTTOM - 4)
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

        waves = int(self.waves.max()) + 1
        caption = f"{len(self.sm):,} blocks on {len(self.used)} SMs in {waves} wave(s); a bar spans a block's run"
        legend = [(tuple(int(c) for c in palette[k % len(palette)]), f"wave {k}") for k in range(min(waves, 6))]
        return ViewImage(rgb, caption, legend, pick, hover)

    def _time_now(self, state) -> int | None:
        if state.order != REPLAY or state.replay is None:
            return None
        return int(state.replay.time_at(state.frame))

    def _axes(self, rgb: np.ndarray, row_h: float, t0: int, t1: int, unit: str, colour) -> None:
        """SM numbers on the left (at most about 16), the time span below."""
        step = max(1, -(-len(self.used) // 16))
        labels = [(f"SM {int(sm)}", colour, (2, max(0, 4 + int((r + 0.5) * row_h) - 6)))
                  for r, sm in enumerate(self.used) if r % step == 0]  # fmt: skip
        labels.append((f"time: {t0:,} to {t1:,} {unit}", colour, (LEFT, rgb.shape[0] - BOTTOM + 4)))
        write_at(rgb, labels, size=11)
