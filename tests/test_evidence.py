"""A lesson's `## Evidence` names the frames that prove its answer; every word resolves on the
lesson's own run (a real view, replay cursor, thread and element), and words that are not there fail."""

import numpy as np
import pytest

from gpuviz.app.views.table import BY_NAME
from gpuviz.catalog import find, lessons
from gpuviz.catalog.evidence import parse_evidence, resolve
from gpuviz.core import moments
from gpuviz.core.errors import GpuvizError
from gpuviz.core.replay import Replay
from gpuviz.core.trace.columns import READ
from gpuviz.run.demo import run_demo
from tests import full_size

LESSONS = lessons()
PANELS = {"lesson", "races", "story", "record", "legend", "animation"}  # beside the lesson text: raising hides it


@pytest.fixture(scope="module")
def one_thread(tmp_path_factory):
    """Lesson 1: one thread reads and writes array[0], array[1], ... in turn: event 2i reads array[i]."""
    trace = run_demo(find("one-thread"), tmp_path_factory.mktemp("one"), backend="sim").session.traces[0]
    return trace, Replay(trace)


@pytest.mark.parametrize("entry", full_size.entries(LESSONS))
def test_every_lessons_evidence_resolves_on_its_own_run(entry, tmp_path):
    evidence = entry.evidence
    assert evidence is not None, f"{entry.name} has no `## Evidence` section"
    assert evidence.view in BY_NAME and evidence.view not in PANELS, evidence.view
    traces = run_demo(entry, tmp_path, backend="sim").session.traces
    launch = evidence.launch if evidence.launch is not None else entry.launch or 0
    trace = traces[launch]
    replay = Replay(trace)
    scene = resolve(evidence, trace, replay, tuple(traces))
    if evidence.partner is not None:  # the Compare view's partner: another launch of the run
        assert scene.partner == evidence.partner and traces[scene.partner] is not trace
    assert scene.frame is None or 0 <= scene.frame <= replay.events
    assert -1 <= scene.selected < trace.n_threads and (evidence.thread is None) == (scene.selected < 0)
    if scene.element is not None:
        aid, index, block = scene.element
        assert 0 <= index < replay.values_at(aid, 0, block).size
    assert scene.caption and "{" not in scene.caption and scene.caption[0].isupper()
    assert_marks_show_the_claim(entry, evidence, scene, trace)


def assert_marks_show_the_claim(entry, evidence, scene, trace) -> None:
    """The picture, not only the caption, carries the claim: the evidence chooses its colours, and its marks
    outline the thread and the element the caption names, each mark's cells found again in the trace."""
    if evidence.view != "streams":  # the Streams view colours its bars by the kind of work, whatever the mode
        assert evidence.colour is not None, f"{entry.name}: the evidence names no `colour:` for its claim"
    assert scene.marks, f"{entry.name}: the evidence marks nothing; a colour mode alone does not show the claim"
    marked_threads = set().union(*(set(m.threads.tolist()) for m in scene.marks if m.threads is not None))
    marked_elements = {(m.array, int(i), m.block) for m in scene.marks if m.elements is not None for i in m.elements}
    if scene.selected >= 0 and "{thread}" in evidence.caption:
        assert scene.selected in marked_threads, f"{entry.name}: the caption's thread is not marked"
    if scene.element is not None:
        assert scene.element in marked_elements, f"{entry.name}: the caption's element is not marked"
    for mark in scene.marks:
        assert mark.count > 0 and mark.label
        if mark.threads is not None:
            assert mark.threads.min() >= 0 and mark.threads.max() < trace.n_threads
        elif mark.spans is not None:  # spans of the stream timeline the launch carries
            assert max(mark.spans) < len(trace.meta["streams"]["spans"])
        else:
            entry_shape = trace.meta["arrays"][mark.array]["shape"]
            assert mark.elements.min() >= 0 and mark.elements.max() < max(1, int(np.prod(entry_shape)))
    for text, mark in zip(evidence.marks, scene.marks):
        if text.startswith("readers of "):  # found again: the threads with a read of the element before the cursor
            acc = trace.accesses
            aid, index, block = scene.element
            rows = np.arange(scene.frame if scene.frame is not None else len(acc["thread"]))
            rows = rows[(acc["array"][rows] == aid) & (acc["index"][rows] == index) & (acc["kind"][rows] == READ)]
            assert set(mark.threads.tolist()) == set(acc["thread"][rows].tolist())


def test_the_race_lessons_picture_colours_threads_by_the_value_they_read():
    entry = find("the-race")
    assert entry.evidence.colour == "value read" and entry.evidence.element == "array[0]"
    assert "readers of the element" in entry.evidence.marks


def test_moments_are_the_events_they_name(one_thread):
    trace, replay = one_thread
    assert moments.moment(trace, replay, "first read of array[5]") == 11  # after events 0..10
    assert moments.moment(trace, replay, "first write of array[5]") == 12
    assert moments.moment(trace, replay, "last write of array") == replay.events
    assert moments.moment(trace, replay, "first access of line 10") == 1
    assert (moments.moment(trace, replay, "start"), moments.moment(trace, replay, "end")) == (0, 2048)
    assert moments.moment(trace, replay, "wave 1") == 1 and moments.moment(trace, replay, "last block start") == 1
    assert moments.thread(trace, replay, "last write of array[1023]") == 0
    assert moments.element(trace, "array[7]") == (0, 7, None)


@pytest.mark.parametrize(
    "words",
    [
        "lost update of array[0]",
        "race",
        "barrier 1",
        "wave 2",
        "first write of b",
        "first write of array[1024]",
        "first write of line 99",
        "sometime",
    ],
)
def test_a_moment_that_is_not_in_the_launch_says_so(one_thread, words):
    trace, replay = one_thread
    with pytest.raises(GpuvizError):
        moments.moment(trace, replay, words)


def test_threads_by_their_coordinates_and_bad_ones(one_thread):
    trace, replay = one_thread
    assert moments.thread(trace, replay, "block 0 thread 0") == 0 == moments.thread(trace, replay, "slowest")
    for words in ("1", "block 1 thread 0", "start", "barrier 1", "someone"):
        with pytest.raises(GpuvizError):
            moments.thread(trace, replay, words)


def test_the_section_parses_and_bad_lines_say_what_is_allowed():
    evidence = parse_evidence("view: data\nat: race\nline: 12\ncaption: See {element}: it is {value}.\n")
    assert (evidence.view, evidence.at, evidence.line, evidence.launch) == ("data", "race", 12, None)
    assert parse_evidence("") is None
    for text in (
        "view: data",
        "caption: x",
        "view: data\ncaption: x\nwhen: now",
        "view: data\ncaption: x\ncolour: pink",
        "view: data\ncaption: x\nline: twelve",
        "view: compare\ncaption: x\npartner: first",
        "view: compare\ncaption: x\nlaunch: 1\npartner: 1",
    ):
        with pytest.raises(GpuvizError):
            parse_evidence(text)


def test_a_caption_names_only_what_the_evidence_resolves(one_thread):
    trace, replay = one_thread
    scene = resolve(
        parse_evidence(
            "view: data\nat: first write of array[3]\nthread: first write of array[3]\n"
            "element: array[3]\ncaption: {thread} wrote {element} = {value}."
        ),
        trace,
        replay,
    )
    assert scene.caption == "Thread 0 of block 0 wrote array[3] = 0.5." and scene.frame == 8
    for caption in ("{value} alone", "{who}"):
        with pytest.raises(GpuvizError):
            resolve(parse_evidence(f"view: data\ncaption: {caption}"), trace, replay)


def test_a_thread_named_by_its_place_needs_no_access_log():
    """A launch recorded at level threads (a GPU's 16.8 M-thread vector add) still resolves
    `thread: block B thread T` and the slowest thread; a moment still needs the log."""
    import numpy as np

    import gpuviz

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = i\n"
    trace = gpuviz.trace(src, backend="sim", level="threads")[4, 32](np.zeros(100))
    scene = resolve(parse_evidence("view: grid\nthread: block 3 thread 11\ncaption: {thread}"), trace)
    assert scene.selected == 3 * 32 + 11 and scene.caption == "Thread 11 of block 3"
    assert resolve(parse_evidence("view: grid\nthread: slowest\ncaption: {thread}"), trace).selected >= 0
    with pytest.raises(GpuvizError, match="without its accesses"):
        resolve(parse_evidence("view: grid\nat: end\ncaption: the end"), trace)


@pytest.mark.parametrize("value, written", [(1048576.0, "1,048,576"), (1672.25, "1,672.25"), (4.5, "4.5")])
def test_a_captions_value_reads_as_people_write_it(value, written):
    """{value} is the element's value at the cursor, with thousands separated and no exponent."""
    import numpy as np

    import gpuviz

    src = f"from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = {value!r}\n"
    trace = gpuviz.trace(src, backend="sim")[1, 4](np.zeros(4))
    evidence = parse_evidence("view: data\nat: end\nelement: a[2]\ncaption: The launch leaves {element} at {value}.")
    assert resolve(evidence, trace, Replay(trace)).caption == f"The launch leaves a[2] at {written}."
