"""An array without Qt: each element coloured by the thread that last wrote it (by its block), as the app's
data view colours it (core/data_codes.py); in the replay only what was written by the cursor shows. The
selected thread's reads (cyan) and writes (white), or the picked element (white), are outlined."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.links import thread_accesses, writers
from gpuviz.core.data_codes import (
    NEVER,
    SEVERAL,
    UNRECORDED,
    element_codes,
    first_writes,
    lut,
    picture_shape,
    short,
    unrecorded_changes,
    why_empty,
)
from gpuviz.core.frames import REPLAY
from gpuviz.core.trace.columns import READ
from gpuviz.images.canvas import Look, ViewImage, blank, fit_cells, outline
from gpuviz.scene.state import AppState

MODE = "writer's block"
READ_MARK, WRITE_MARK = (86, 220, 240), (255, 255, 255)
MAX_MARKS = 400  # outlines drawn; past that the colours alone show the thread's accesses


def shown_array(state: AppState) -> int:
    """The array shown: the picked element's; in the replay the one written last by the cursor (what the
    launch is doing now); else the first one something wrote, else the first."""
    trace = state.trace
    if state.element is not None:
        return int(state.element[0])
    if trace.accesses is None:
        return 0
    acc = trace.accesses
    if state.order == REPLAY and state.frame > 0:
        written = np.flatnonzero(acc["kind"][: state.frame] != READ)
        if len(written):
            return int(acc["array"][written[-1]])
    written = acc["array"][acc["kind"] != READ]
    return int(written.min()) if len(written) else 0


def block_shown(state: AppState, array: int) -> int | None:
    """A shared array's copy: the picked element's block, else the selected thread's (block 0 for none)."""
    if state.trace.meta["arrays"][array]["space"] != "shared":
        return None
    if state.element is not None and state.element[0] == array and state.element[2] is not None:
        return int(state.element[2])
    return max(0, state.selected) // int(np.prod(state.trace.block))


class DataPicture:
    """Draws an array of an app state; who wrote each element is worked out once per array and copy."""

    def __init__(self) -> None:
        self._key = None

    def _prepare(self, state: AppState, array: int, block: int | None, size: int) -> None:
        key = (id(state.trace), array, block, id(state.coloring))
        if key != self._key:
            trace = state.trace
            last, count = writers(trace, array, size, block)
            self.codes = element_codes(trace, last, count, MODE, len(state.palette_colours()))
            unseen = unrecorded_changes(trace, trace.meta["arrays"][array], last)
            if unseen is not None:
                self.codes[unseen] = UNRECORDED
            self.first = first_writes(trace, array, size, block)
            self.last, self.count, self._key = last, count, key

    def draw(self, state: AppState, box: tuple[int, int], look: Look) -> ViewImage:
        trace = state.trace
        arrays = trace.meta.get("arrays", [])
        array = shown_array(state) if arrays else -1
        entry = arrays[array] if array >= 0 else None
        size = int(np.prod(entry["shape"])) if entry is not None and entry["shape"] else 1
        if entry is None or size == 0 or trace.accesses is None:
            return ViewImage(blank(box, look.background), why_empty(trace, entry))
        block = block_shown(state, array)
        self._prepare(state, array, block, size)
        replaying = state.order == REPLAY and state.replay is not None
        codes = self.codes
        if replaying:
            codes = np.where((self.first < state.frame) | (codes == UNRECORDED), codes, NEVER).astype(np.uint8)
        rows, columns = picture_shape(tuple(entry["shape"]) or (1,))
        plane = np.full(rows * columns, NEVER, np.uint8)
        plane[: min(size, plane.size)] = codes[: plane.size]
        table = lut(state.palette_colours())
        hidden = np.zeros(rows * columns, bool)
        hidden[size:] = True
        rgb, cells = fit_cells(plane.reshape(rows, columns), table, box, look.background, hidden.reshape(rows, columns))
        self._mark(state, array, rgb, cells, columns)
        where = f", block {block}'s copy" if block is not None else ""
        written = int(((self.first < state.frame) if replaying else (self.count > 0)).sum())
        several = int((self.count > 1).sum())
        by_now = " by the cursor" if replaying else ""
        caption = (
            f"{entry['name']}{where}: {written:,} of {size:,} elements written{by_now}; by several threads: {several:,}"
        )

        def element_at(px: float, py: float) -> int:
            cell = cells.cell_at(px, py)
            index = -1 if cell is None else cell[1] * columns + cell[0]
            return index if 0 <= index < size else -1

        def pick(px: float, py: float):
            index = element_at(px, py)
            return ("element", (array, index, block)) if index >= 0 else None

        def hover(px: float, py: float) -> str:
            index = element_at(px, py)
            if index < 0:
                return ""
            writer = int(self.last[index])
            said = f"last written by thread {writer:,}" if writer >= 0 else "never written"
            now = (
                f"; at the cursor {short(state.replay.values_at(array, state.frame, block)[index])}"
                if replaying
                else ""
            )
            return f"{entry['name']}[{index}]: {said}{now}"

        blocks = min(trace.n_threads // int(np.prod(trace.block)), len(state.palette_colours()), 4)
        legend = [(tuple(int(c) for c in table[k, :3]), f"last written by block {k - 1}") for k in range(1, blocks + 1)]
        legend += [(tuple(int(c) for c in table[SEVERAL, :3]), "several writers"),
                   (tuple(int(c) for c in table[NEVER, :3]), "never written")]  # fmt: skip
        return ViewImage(rgb, caption, legend, pick, hover)

    def _mark(self, state: AppState, array: int, rgb: np.ndarray, cells, columns: int) -> None:
        """The selected thread's accesses (so far, in the replay) and the picked element, outlined."""
        reads = writes = np.zeros(0, np.int64)
        if state.selected >= 0:
            rows = thread_accesses(state.trace, state.selected, state.frame if state.order == REPLAY else None)
            if rows:
                mine = rows["array"] == array
                reads = np.unique(rows["index"][mine & (rows["kind"] == READ)])
                writes = np.unique(rows["index"][mine & (rows["kind"] != READ)])
        if state.element is not None and state.element[0] == array:
            writes = np.union1d(writes, [int(state.element[1])])
        for indices, colour in ((reads, READ_MARK), (writes, WRITE_MARK)):
            for index in indices[:MAX_MARKS]:
                x, y = cells.pixel_of(int(index) % columns, int(index) // columns)
                outline(rgb, x, y, cells.size, cells.size, colour, 1 if cells.size < 8 else 2)
