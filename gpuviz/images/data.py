"""An array without Qt, as the app's data view draws it (core/data_codes.py): each element coloured by the
thread that last wrote it (its block, warp or thread), elements written by several threads hatched, or by
how many times it was read; in the replay only what the cursor has reached shows. The selected thread's
reads (cyan) and writes (white), or the picked element (white), are outlined."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.links import thread_accesses, writers
from gpuviz.core.data_codes import (
    MODES,
    NEVER,
    NOT_READ,
    READS,
    SEVERAL,
    UNRECORDED,
    array_words,
    data_legend,
    element_codes,
    first_writes,
    lut,
    picture_shape,
    read_codes,
    read_rows,
    short,
    unrecorded_changes,
    why_empty,
)
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import REPLAY
from gpuviz.core.trace.columns import READ
from gpuviz.images.canvas import Look, ViewImage, blank, fit_cells, outline
from gpuviz.scene.state import AppState

READ_MARK, WRITE_MARK = (86, 220, 240), (255, 255, 255)
MAX_MARKS = 400  # outlines drawn; past that the colours alone show the thread's accesses
COLOURED_BY = {"writer's block": "the block that last wrote each element", READS: "how many times each is read",
               "writer's warp": "the warp that last wrote each element",
               "writer's thread": "the thread that last wrote each element"}  # fmt: skip


def shown_array(state: AppState, chosen: int | None = None) -> int:
    """The array shown: the picked element's, else the one chosen; in the replay the one written last by
    the cursor (what the launch is doing now); else the first one something wrote, else the first."""
    trace = state.trace
    if state.element is not None:
        return int(state.element[0])
    if chosen is not None:
        return chosen
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
        self.mode = MODES[0]  # what an element's colour says (core/data_codes.py: MODES)
        self.array: int | None = None  # the array chosen; None: follow the cursor

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise GpuvizError(f"unknown data colour {mode!r}; colours: {', '.join(MODES)}")
        self.mode = mode

    def _prepare(self, state: AppState, array: int, block: int | None, size: int) -> None:
        key = (id(state.trace), array, block, id(state.coloring), self.mode)
        if key == self._key:
            return
        trace = state.trace
        self.last, self.count = writers(trace, array, size, block)
        self.by_reads = self.mode == READS or not (self.last >= 0).any()  # an array no thread writes: its reads
        if self.by_reads:
            self.reads = read_rows(trace, array, block)
            self.most = int(np.bincount(trace.accesses["index"][self.reads], minlength=1).max())
            self.codes = read_codes(trace, self.reads, size, None, self.most)
        else:
            self.most = 0
            self.codes = element_codes(trace, self.last, self.count, self.mode, len(state.palette_colours()))
            unseen = unrecorded_changes(trace, trace.meta["arrays"][array], self.last)
            if unseen is not None:
                self.codes[unseen] = UNRECORDED
        self.first = first_writes(trace, array, size, block)
        self._key = key

    def _codes_now(self, state: AppState, replaying: bool) -> np.ndarray:
        """The element codes at the cursor (the replay), else after the launch."""
        if not replaying:
            return self.codes
        if self.by_reads:
            return read_codes(state.trace, self.reads, len(self.codes), state.frame, self.most)
        shown = (self.first < state.frame) | (self.codes == UNRECORDED)  # when is not known: all along
        return np.where(shown, self.codes, NEVER).astype(np.uint8)

    def draw(self, state: AppState, box: tuple[int, int], look: Look) -> ViewImage:
        trace = state.trace
        arrays = trace.meta.get("arrays", [])
        array = shown_array(state, self.array) if arrays else -1
        entry = arrays[array] if array >= 0 else None
        size = int(np.prod(entry["shape"])) if entry is not None and entry["shape"] else 1
        if entry is None or size == 0 or trace.accesses is None:
            return ViewImage(blank(box, look.background), why_empty(trace, entry), title="Data")
        block = block_shown(state, array)
        self._prepare(state, array, block, size)
        replaying = state.order == REPLAY and state.replay is not None
        codes = self._codes_now(state, replaying)
        rows, columns = picture_shape(tuple(entry["shape"]) or (1,))
        plane = np.full(rows * columns, NEVER, np.uint8)
        plane[: min(size, plane.size)] = codes[: plane.size]
        table = lut(state.palette_colours())
        hidden = np.zeros(rows * columns, bool)
        hidden[size:] = True
        rgb, cells = fit_cells(plane.reshape(rows, columns), table, box, look.background,
                               hidden.reshape(rows, columns), hatched=SEVERAL)  # fmt: skip
        outlines = self._mark(state, array, rgb, cells, columns)
        where = f", block {block}'s copy" if block is not None else ""
        mode = READS if self.by_reads else self.mode
        title = f"{array_words(entry)}{where}: coloured by {COLOURED_BY[mode]}"
        caption = self._words(state, entry["name"], codes, replaying)
        legend = data_legend(trace, state.palette_colours(), mode, self.most)

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
            now = (f"; at the cursor {short(state.replay.values_at(array, state.frame, block)[index])}"
                   if replaying else "")  # fmt: skip
            return f"{entry['name']}[{index}]: {said}{now}"

        return ViewImage(rgb, caption, legend, pick, hover, title, outlines)

    def _words(self, state: AppState, name: str, codes: np.ndarray, replaying: bool) -> str:
        """What the picture shows at the cursor, in the app's data view's words."""
        size = len(codes)
        so_far = f" by event {state.frame:,}" if replaying else ""
        if self.by_reads:
            read = int((codes != NOT_READ).sum())
            unwritten = "no thread writes it, so " if not (self.last >= 0).any() else ""
            return (f"{name}: {unwritten}each element is coloured by how many times it is read: {read:,} of {size:,} "
                    f"elements read{so_far}, at most {self.most:,} times (brightest); never read: dark.")  # fmt: skip
        written = int((codes != NEVER).sum())
        several = int((codes == SEVERAL).sum())
        return (f"{name}: {written:,} of {size:,} elements written{so_far}; {several:,} by several threads without "
                "atomics (red, hatched); never written" + (" yet" if replaying else "") + ": dark.")  # fmt: skip

    def _mark(self, state: AppState, array: int, rgb: np.ndarray, cells, columns: int) -> list:
        """The selected thread's accesses (so far, in the replay) and the picked element, outlined; what the
        outlines mean."""
        reads = writes = np.zeros(0, np.int64)
        if state.selected >= 0:
            rows = thread_accesses(state.trace, state.selected, state.frame if state.order == REPLAY else None)
            if rows:
                mine = rows["array"] == array
                reads = np.unique(rows["index"][mine & (rows["kind"] == READ)])
                writes = np.unique(rows["index"][mine & (rows["kind"] != READ)])
        said = []
        if len(reads):
            said.append((READ_MARK, "read by the selected thread"))
        if len(writes):
            said.append((WRITE_MARK, "written by the selected thread"))
        if state.element is not None and state.element[0] == array:
            writes = np.union1d(writes, [int(state.element[1])])
            said.append((WRITE_MARK, "the picked element"))
        for indices, colour in ((reads, READ_MARK), (writes, WRITE_MARK)):
            for index in indices[:MAX_MARKS]:
                x, y = cells.pixel_of(int(index) % columns, int(index) // columns)
                outline(rgb, x, y, cells.size, cells.size, colour, 1 if cells.size < 8 else 2)
        return said
