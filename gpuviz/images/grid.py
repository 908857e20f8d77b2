"""The grid without Qt: every thread a cell, tiled as the app's grid view tiles them (core/layout.py), in
the colours of the app state (its Coloring, frame plan and replay looks: core/grid_colours.py)."""

from __future__ import annotations

import numpy as np

from gpuviz.core.colors import GRID_COLOURS, NOT_RUN
from gpuviz.core.frames import REPLAY
from gpuviz.core.grid_colours import LOOK, replay_colours
from gpuviz.core.layout import block_labels, block_name, cell_owner, grid_layout, outline_rects
from gpuviz.core.replay import AT_BARRIER, FINISHED, NOT_STARTED, RUNNING, STATE_NAMES
from gpuviz.core.thread_record import thread_record
from gpuviz.images.canvas import Look, ViewImage, fit_cells, font, outline, write_boxed
from gpuviz.scene.state import AppState

SELECTED = (255, 255, 255)
MARK = (255, 214, 64)  # a lesson's marks: the threads its claim is about
LABEL_SIZE = 11  # pixels of a block's label
MAX_LABELLED_BLOCKS = 256  # more blocks than this are too small to name in a notebook's picture


class GridPicture:
    """Draws the grid of an app state; the layout of a trace's layer is worked out once."""

    def __init__(self) -> None:
        self._key = None
        self._cells = self._owner = None

    def _prepare(self, state: AppState) -> None:
        key = (id(state.trace), state.layer)
        if key != self._key:
            trace = state.trace
            self.layout = grid_layout(trace.grid, trace.block)
            wide = np.int32 if self.layout.width * self.layout.height < 2**31 else np.int64
            self._cells = self.layout.y.astype(wide) * wide(self.layout.width) + self.layout.x
            self._owner = cell_owner(self.layout, (self.layout.height, self.layout.width))
            self._key = key

    def codes(self, state: AppState) -> tuple[np.ndarray, np.ndarray, str]:
        """The cells' colour codes at the cursor, their lookup table, and what the frame shows in words
        (the app's grid view's words)."""
        self._prepare(state)
        per_layer = state.trace.n_threads // state.trace.grid[2]
        layer = slice(state.layer * per_layer, (state.layer + 1) * per_layer)
        colours = state.coloring
        codes = colours.codes[layer]
        pixels = np.full(self._owner.shape, NOT_RUN, np.uint8)
        now = state.thread_states()
        if state.order == REPLAY and now is not None:
            small, lut = replay_colours(codes, colours.lut)
            states = now.state[layer]
            tally = now.counts()
            if tally[RUNNING] == tally[AT_BARRIER] == tally[NOT_STARTED] == 0:
                states = np.full_like(states, RUNNING)  # the run is over: its colours at full strength
            pixels.ravel()[self._cells] = LOOK[states] + small
            said = ", ".join(f"{int(tally[c]):,} {STATE_NAMES[c]}" for c in (RUNNING, AT_BARRIER, FINISHED, NOT_STARTED)
                             if tally[c])  # fmt: skip
            words = f"threads: {said} (finished: dimmed; waiting at a barrier: white)"
        else:
            lut = colours.lut
            plan = state.plan
            frame = max(0, min(state.frame, plan.count - 1))
            lit = plan.order[: int(plan.limits[frame])] if plan.count else plan.order[:0]
            pixels.ravel()[self._cells[lit]] = codes[lit]
            words = f"{len(lit):,} of {len(self._cells):,} threads started"
        return pixels, lut, words

    def draw(self, state: AppState, box: tuple[int, int], look: Look) -> ViewImage:
        pixels, lut, words = self.codes(state)
        rgb, cells = fit_cells(pixels, lut, box, look.background, hidden=self._owner < 0)
        first = state.layer * (state.trace.n_threads // state.trace.grid[2])
        self._draw_marks(state, rgb, cells, first)
        if state.selected >= first and state.selected - first < len(self._cells):
            local = state.selected - first
            x, y = cells.pixel_of(int(self.layout.x[local]), int(self.layout.y[local]))
            outline(rgb, x, y, cells.size, cells.size, SELECTED, 2)
        trace = state.trace

        def thread_at(px: float, py: float) -> int:
            cell = cells.cell_at(px, py)
            owner = -1 if cell is None else int(self._owner[cell[1], cell[0]])
            return -1 if owner < 0 else owner + first

        def pick(px: float, py: float):
            gid = thread_at(px, py)
            return ("thread", gid) if gid >= 0 else None

        def hover(px: float, py: float) -> str:
            gid = thread_at(px, py)
            return thread_record(trace, gid) if gid >= 0 else ""

        self._label_blocks(state, rgb, cells)
        outlines = [(MARK, mark.label) for mark in state.marks if mark.threads is not None]
        if state.selected >= 0:
            outlines.append((SELECTED, "the selected thread"))
        return ViewImage(rgb, words, self._legend(state, lut), pick, hover, self._title(state), outlines)

    @staticmethod
    def _title(state: AppState) -> str:
        trace = state.trace
        gx, gy, gz = trace.grid
        layer = f", layer z={state.layer} of {gz}" if gz > 1 else ""
        return (f"Threads: {trace.n_threads:,} in {gx * gy * gz:,} blocks of {int(np.prod(trace.block)):,}{layer}, "
                f"a cell each, coloured by {state.colour_mode}")  # fmt: skip

    @staticmethod
    def _legend(state: AppState, lut: np.ndarray) -> list:
        """What the colours mean: the colour mode's legend, and in the replay the looks of the thread states."""
        legend = [(GRID_COLOURS[NOT_RUN], "not started yet"), *state.coloring.legend]
        if state.order == REPLAY and state.thread_states() is not None:
            first = int(state.coloring.codes[0]) if len(state.coloring.codes) else 1
            look = lambda kind: tuple(int(c) for c in lut[LOOK[kind] + min(first, 63), :3])  # noqa: E731
            legend += [(look(AT_BARRIER), "waiting at a barrier (near white)"), (look(FINISHED), "finished (dimmed)")]
        return legend

    def _label_blocks(self, state: AppState, rgb: np.ndarray, cells) -> None:
        """blockIdx at each block's top left (core/layout.py: block_labels), as the app labels them, once
        the widest name fits a block's width and a line of text its height."""
        trace, layout = state.trace, self.layout
        gx, gy, gz = trace.grid
        pixels = cells.size / cells.step  # a cell's pixels
        widest = font(LABEL_SIZE).getlength(block_name(gx * gy - 1, gx, gy, state.layer, gz)) + 4
        self.labelled: list[str] = []  # the blocks named in the last picture
        if gx * gy > MAX_LABELLED_BLOCKS or pixels * layout.tile_w < widest or pixels * layout.tile_h < LABEL_SIZE + 4:
            return
        visible = (0, layout.width, 0, layout.height)
        items = []
        for label in block_labels(layout, trace.grid, state.layer, visible, (LABEL_SIZE + 4) / pixels):
            x, y = cells.pixel_of(int(label.x), 0)[0], cells.origin[1] + int(label.y * pixels)
            items.append((label.text, (x + 2, y - LABEL_SIZE // 2 - 1)))
        write_boxed(rgb, items, LABEL_SIZE)
        self.labelled = [text for text, _ in items]

    def _draw_marks(self, state: AppState, rgb: np.ndarray, cells, first: int) -> None:
        """The threads of the scene's marks (a lesson's evidence) outlined, a few rectangles each
        (core/layout.py: outline_rects joins runs of cells)."""
        for mark in state.marks:
            if mark.threads is None:
                continue
            local = mark.threads[(mark.threads >= first) & (mark.threads < first + len(self._cells))] - first
            for x, y, w, h in outline_rects(self.layout.x[local], self.layout.y[local]):
                x0, y0 = cells.pixel_of(int(x), int(y))
                x1, y1 = cells.pixel_of(int(x + w), int(y + h))
                outline(rgb, x0, y0, max(1, x1 - x0), max(1, y1 - y0), MARK, 1)
