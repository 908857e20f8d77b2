"""The data view's colours: a colour code per array element (its last writer, several writers, never
written, or how many times it was read) and their lookup table. Qt-free: the app's data view and the
notebook's pictures draw the same codes."""

from __future__ import annotations

import math

import numpy as np

from gpuviz.core.colors import RACE
from gpuviz.core.numbers import number
from gpuviz.core.trace.columns import READ

NEVER, SEVERAL, UNRECORDED = 0, 13, 14  # UNRECORDED: changed by the launch, its writer's accesses not kept
NOT_READ, READ_LOW, READ_HIGH = 15, 16, 254  # times read: never, then a ramp from once to the most
MODES = ("writer's block", "writer's warp", "writer's thread", "times read")  # what an element's colour says
READS = MODES[-1]  # an array no thread writes (a matrix read by a matmul) is always drawn by its reads
LEGEND_COUNTS = 6  # up to this many reads the legend names each count; above, the ramp's ends


def picture_shape(shape: tuple) -> tuple[int, int]:
    """Rows and columns of the picture: a 1-D array of up to 16 elements in one row, a longer one in rows
    of a power of two near its square root (at least 16: row starts easy to read), so that 64 elements
    make 4 rows of 16 big enough to see from the back of a room and a million a square of 1,024 x 1,024
    instead of a strip."""
    if len(shape) == 1:
        width = max(16, 2 ** round(math.log2(math.sqrt(shape[0])))) if shape[0] > 16 else max(shape[0], 1)
        return math.ceil(shape[0] / width), width
    if len(shape) == 2:
        return shape[0], shape[1]
    return shape[1], shape[2]


def array_words(entry: dict) -> str:
    """An array as the data view's list names it: `C (global, float32(16, 16))`."""
    return f"{entry['name']} ({entry['space']}, {entry['dtype']}{tuple(entry['shape'])})"


def why_empty(trace, entry) -> str:
    if trace is None:
        return "No trace yet."
    if entry is None:
        return "This launch has no arrays."
    if trace.accesses is None:
        return "Accesses were not recorded for this launch (level threads): run with level accesses to see them."
    return f"{entry['name']} has no elements."


def element_codes(trace, last: np.ndarray, count: np.ndarray, mode: str, colours: int) -> np.ndarray:
    """A colour code per element: its last writer's (thread, block or warp) among `colours` palette colours,
    several writers, or never written."""
    per_block = int(np.prod(trace.block))
    writer = np.maximum(last, 0)
    if mode.endswith("thread"):
        ids = writer
    elif mode.endswith("block"):
        ids = writer // per_block
    else:  # blocks of any size: a block's warps follow the previous block's
        ids = (writer // per_block) * ((per_block + 31) // 32) + trace.threads["warp"][writer]
    codes = (ids % colours + 1).astype(np.uint8)
    codes[last < 0] = NEVER
    codes[count > 1] = SEVERAL
    return codes


def unrecorded_changes(trace, entry: dict, last: np.ndarray) -> np.ndarray | None:
    """Elements no recorded access wrote whose value the launch changed, where the trace kept the
    accesses of some blocks only (None where it kept all, or for arrays without snapshots)."""
    if trace.meta.get("recorded_blocks") is None or entry["name"] not in trace.args:
        return None
    before, after = (a.reshape(-1) for a in trace.args[entry["name"]])
    changed = before != after
    if before.dtype.kind in "fc":
        changed &= ~(np.isnan(before) & np.isnan(after))
    return changed & (last < 0)


def first_writes(trace, array: int, size: int, block: int | None) -> np.ndarray:
    """Per element, the log position of its first write (or of this block's copy); the log's length if never."""
    acc = trace.accesses
    rows = (acc["array"] == array) & (acc["kind"] != READ)
    if block is not None:
        rows &= acc["thread"] // int(np.prod(trace.block)) == block
    rows = np.flatnonzero(rows)
    first = np.full(size, len(acc["thread"]), np.int64)
    np.minimum.at(first, acc["index"][rows], rows)
    return first


def read_rows(trace, array: int, block: int | None) -> np.ndarray:
    """Log positions of the reads of an array (of one block's copy of a shared array)."""
    acc = trace.accesses
    rows = (acc["array"] == array) & (acc["kind"] == READ)
    if block is not None:
        rows &= acc["thread"] // int(np.prod(trace.block)) == block
    return np.flatnonzero(rows)


def read_codes(trace, rows: np.ndarray, size: int, until: int | None, most: int) -> np.ndarray:
    """Per element, a colour code for how many times it was read by log position `until` (None: by the
    end), on a ramp whose top is `most` reads (the launch's most, so the replay fills the same scale)."""
    if until is not None:
        rows = rows[: np.searchsorted(rows, until)]
    counts = np.bincount(trace.accesses["index"][rows], minlength=size)[:size]
    codes = np.full(size, NOT_READ, np.uint8)
    read = counts > 0
    codes[read] = read_code(counts[read], most)
    return codes


def read_code(count, most: int):
    """The colour code of an element read `count` times (1 or more) on a ramp whose top is `most` reads."""
    span = READ_HIGH - READ_LOW
    return READ_LOW + (np.clip((np.asarray(count) - 1) * span // max(1, most - 1), 0, span)).astype(np.uint8)


def short(value: float) -> str:
    return "?" if value != value else number(value)  # at most four decimals: it fits a cell


def lut(palette: np.ndarray) -> np.ndarray:
    """The element colours: the palette's for the writers, the race colour (drawn hatched too) for several."""
    lut = np.zeros((256, 4), np.uint8)
    lut[:, 3] = 255
    lut[NEVER, :3] = (45, 45, 55)
    lut[1 : len(palette) + 1, :3] = palette
    lut[SEVERAL, :3] = RACE
    lut[UNRECORDED, :3] = (95, 75, 130)  # muted purple: written, but by whom is not in the trace
    lut[NOT_READ, :3] = (45, 45, 55)
    ramp = np.linspace(0, 1, READ_HIGH - READ_LOW + 1)[:, None]  # dark blue to yellow, as the grid's ramps
    lut[READ_LOW : READ_HIGH + 1, :3] = (np.array([68, 1, 84]) * (1 - ramp) + np.array([253, 231, 37]) * ramp).astype(
        np.uint8)  # fmt: skip
    lut[255, :3] = (24, 24, 30)
    return lut


Legend = list[tuple[tuple[int, int, int], str]]


def data_legend(trace, palette: np.ndarray, mode: str, most_reads: int = 0) -> Legend:
    """What the data view's colours mean in a mode (MODES), in the app's and the notebook's words."""
    table = lut(palette)
    rgb = lambda code: tuple(int(c) for c in table[code, :3])  # noqa: E731
    if mode == READS:
        return [(rgb(NOT_READ), "never read"),
                *((rgb(read_code(n, most_reads)), times_read(n)) for n in counts_shown(most_reads))]  # fmt: skip
    who = mode.removeprefix("writer's ")
    per_block = int(np.prod(trace.block))
    count = {"block": trace.n_threads // per_block, "warp": trace.n_threads // per_block * ((per_block + 31) // 32),
             "thread": trace.n_threads}[who]  # fmt: skip
    again = f" (and every {len(palette)}th after)" if count > len(palette) else ""
    shown = min(count, len(palette))
    writers = [(rgb(k + 1), f"last written by {who} {k}{again if k == 0 else ''}") for k in range(shown)]
    unknown = [(rgb(UNRECORDED), "changed; its writer's accesses not recorded")] if trace.meta.get(
        "recorded_blocks") is not None else []  # fmt: skip
    return [*writers, (rgb(SEVERAL), "written by several threads (hatched)"), (rgb(NEVER), "never written"), *unknown]


def counts_shown(most: int) -> list[int]:
    """The read counts a legend names: each from once to the most when they are few (a replay passes
    through every count below an element's final one), else the ramp's two ends."""
    return list(range(1, most + 1)) if most <= LEGEND_COUNTS else [1, most]


def times_read(n: int) -> str:
    return {1: "read once", 2: "read twice"}.get(n, f"read {n:,} times")
