"""Marks (core/marks.py): the threads and elements a claim is about, found in the trace; the rectangles that
outline them; the colour modes chosen for a claim; numbers as people write them."""

import numpy as np
import pytest

import gpuviz
from gpuviz.core.colors import coloring, first_read_values
from gpuviz.core.errors import GpuvizError
from gpuviz.core.layout import MAX_OUTLINE_RECTS, outline_rects
from gpuviz.core.marks import KINDS, Focus, resolve_mark
from gpuviz.core.numbers import number
from gpuviz.core.replay import Replay
from gpuviz.core.trace.columns import READ

RACE = """from numba import cuda
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    a[0] += 1.0
    if i < 40:
        out[i] = i
"""


@pytest.fixture(scope="module")
def race():
    """64 threads in 2 blocks race on a[0]; threads 40 to 63 write nothing to out."""
    trace = gpuviz.trace(RACE, backend="sim")[2, 32](np.zeros(1), np.zeros(64))
    return trace, Replay(trace)


def covered(rects: np.ndarray) -> set[tuple[int, int]]:
    return {(x, y) for x0, y0, w, h in rects.tolist() for x in range(x0, x0 + w) for y in range(y0, y0 + h)}


@pytest.mark.parametrize("seed", range(20))
def test_rectangles_cover_exactly_the_cells(seed):
    rng = np.random.default_rng(seed)
    width, height = rng.integers(1, 40, 2)
    cells = rng.random((height, width)) < rng.random()
    ys, xs = np.nonzero(cells)
    rects = outline_rects(xs, ys)
    assert covered(rects) == set(zip(xs.tolist(), ys.tolist()))
    assert len(rects) <= max(1, len(xs))


def test_a_whole_block_is_one_rectangle_and_too_many_become_a_bounding_box():
    ys, xs = np.mgrid[4:36, 8:40]
    assert outline_rects(xs.ravel(), ys.ravel()).tolist() == [[8, 4, 32, 32]]
    xs = np.arange(0, 2 * (MAX_OUTLINE_RECTS + 1), 2)  # every other cell of a row: one rectangle each, too many
    assert outline_rects(xs, np.zeros_like(xs)).tolist() == [[0, 0, int(xs[-1]) + 1, 1]]
    assert outline_rects(np.array([], int), np.array([], int)).shape == (0, 4)


def test_readers_and_writers_are_the_threads_of_the_log_before_the_cursor(race):
    trace, replay = race
    acc = trace.accesses
    frame = int(np.flatnonzero(acc["kind"] != READ)[0])  # just before the first write lands
    focus = Focus(frame, 0, (0, 0, None))
    readers = resolve_mark("readers of the element", trace, replay, focus)
    expected = np.unique(acc["thread"][:frame][(acc["array"][:frame] == 0) & (acc["kind"][:frame] == READ)])
    assert readers.threads.tolist() == expected.tolist() and "all saw 0" in readers.label
    whole = resolve_mark("writers of a[0]", trace, replay, Focus())
    assert whole.threads.tolist() == list(range(64)) and "64 threads wrote a[0]" in whole.label


def test_thread_marks_are_found_in_the_launch(race):
    trace, replay = race
    focus = Focus(None, 45, (1, 5, None))
    with pytest.raises(GpuvizError, match="every thread there wrote"):  # a[0] is written by every thread
        resolve_mark("threads that wrote nothing in the thread's block", trace, replay, focus)
    bounded = gpuviz.trace(RACE.replace("    a[0] += 1.0\n", ""), backend="sim")[2, 32](np.zeros(1), np.zeros(64))
    idle = resolve_mark("threads that wrote nothing in the thread's block", bounded, None, focus)
    assert idle.threads.tolist() == list(range(40, 64)) and idle.label == "24 threads of block 1 write nothing"
    warp = resolve_mark("warp of the thread", trace, replay, focus)
    assert warp.threads.tolist() == list(range(32, 64)) and "32 lanes" in warp.label
    mine = resolve_mark("elements of out written by the thread", trace, replay, Focus(None, 7))
    assert mine.elements.tolist() == [7] and mine.array == 1
    assert resolve_mark("the element", trace, replay, focus).label == "out[5] = 5"
    slow = resolve_mark("slowest threads", trace, replay, focus)
    duration = trace.threads["t_end"] - trace.threads["t_start"]
    assert set(slow.threads.tolist()) == set(np.flatnonzero(duration == duration.max()).tolist())
    assert "cycles (model)" in slow.label


@pytest.mark.parametrize("words", ["readers of out[63]", "the thread", "the element", "elements of b read by the "
                                   "thread", "threads with a memory error", "threads waiting at a barrier",
                                   "somebody", "threads that wrote nothing in block 3"])  # fmt: skip
def test_a_mark_the_launch_does_not_have_says_so(race, words):
    trace, replay = race
    with pytest.raises(GpuvizError, match="mark|element|array|no "):
        resolve_mark(words, trace, replay, Focus())
    assert KINDS  # the list the message offers


def test_value_read_colours_threads_by_the_value_they_saw(race):
    trace, _ = race
    values, name = first_read_values(trace, (0, 0, None))
    acc = trace.accesses
    for gid in (0, 17, 63):
        rows = np.flatnonzero((acc["thread"] == gid) & (acc["array"] == 0) & (acc["kind"] == READ))
        assert values[gid] == acc["value"][rows[0]]
    colours = coloring(trace, "value read", (0, 0, None))
    distinct = np.unique(values[np.isfinite(values)])
    assert len({int(c) for c in colours.codes}) == len(distinct)  # one colour per value seen
    assert all(name in text for _, text in colours.legend[:-1]) and "did not read a[0]" in colours.legend[-1][1]
    assert coloring(trace, "value read").legend[0][1].startswith("read a[0]")  # without an element: the most read


def test_duration_colours_have_a_scale_with_its_unit(race):
    trace, _ = race
    legend = coloring(trace, "duration").legend
    assert legend[0][1].startswith("ran ") and legend[0][1].endswith("cycles (model)")
    texts = [text for _, text in coloring(trace, "value written").legend]
    assert len(texts) == len(set(texts))  # no entry twice


@pytest.mark.parametrize("value, text", [(1048576, "1,048,576"), (1048576.0, "1,048,576"), (0.5, "0.5"),
                                         (4.5, "4.5"), (1672.25, "1,672.25"), (-2.0, "-2"), (1 / 3, "0.3333"),
                                         (np.int64(7), "7"), (float("nan"), "not set")])  # fmt: skip
def test_numbers_read_as_people_write_them(value, text):
    assert number(value) == text
