"""The stream timeline (core/streams.py): the simulator's model of copies, launches, events and streams
(backends/sim/stream_clock.py), what a timeline adds up to, and where the Streams view draws it."""

import textwrap

import numpy as np
import pytest

from gpuviz.backends.sim import stream_clock as model
from gpuviz.backends.sim.stream_clock import StreamClock
from gpuviz.core.fidelity import MODEL
from gpuviz.core.options import RunOptions
from gpuviz.core.stream_layout import GAP_US, layout
from gpuviz.core.stream_marks import resolve_spans
from gpuviz.core.streams import COMPILE, COPY_IN, COPY_OUT, EVENT, HOST, KERNEL, Span, StreamTimeline, measure
from gpuviz.program.script import run_script
from gpuviz.program.shims.cuda.arrays import PinnedArray
from gpuviz.run.session import Session

KERNEL_SOURCE = """
import numpy as np
from numba import cuda


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
"""


def run(tmp_path, body: str) -> Session:
    script = tmp_path / "script.py"
    script.write_text(KERNEL_SOURCE + textwrap.dedent(body))
    session = Session(RunOptions(backend="sim"), keep_traces=True)
    run_script(script, session)
    return session


def spans_of(session, kind=None):
    timeline = StreamTimeline.from_json(session.traces[-1].meta["streams"])
    return [s for s in timeline.spans if kind is None or s.kind == kind], timeline


def test_a_launch_on_numpy_arrays_copies_each_in_and_back_around_its_kernel(tmp_path):
    session = run(
        tmp_path,
        """
        a = np.ones(1000, np.float32); b = np.ones(1000, np.float32); out = np.zeros(1000, np.float32)
        add[4, 256](a, b, out)
    """,
    )
    spans, timeline = spans_of(session)
    assert [s.kind for s in spans] == [COPY_IN] * 3 + [COMPILE, KERNEL] + [COPY_OUT] * 3
    assert [s.label for s in spans if s.kind == COPY_IN] == ["a", "b", "out"]
    copy = spans[0]
    assert copy.nbytes == 4000 and not copy.pinned
    assert copy.us == pytest.approx(model.COPY_LATENCY_US + 4000 / (model.PAGEABLE_GBPS["copy in"] * 1e3), abs=1e-3)
    kernel = spans[4]
    assert kernel.start_us >= spans[2].end_us + model.FIRST_COMPILE_US + model.LAUNCH_US  # copied, compiled, launched
    assert spans[5].start_us >= kernel.end_us  # numba copies back once the kernel is done
    assert timeline.fidelity == MODEL and measure(timeline, "compile") == model.FIRST_COMPILE_US


def test_device_arrays_are_not_copied_and_a_second_launch_is_not_compiled(tmp_path):
    session = run(
        tmp_path,
        """
        d = cuda.to_device(np.ones(256, np.float32)); out = cuda.device_array(256, np.float32)
        add[1, 256](d, d, out)
        add[1, 256](d, d, out)
        host = out.copy_to_host()
    """,
    )
    spans, _ = spans_of(session)
    assert [s.kind for s in spans] == [COPY_IN, COMPILE, KERNEL, KERNEL, COPY_OUT]


def test_pinned_copies_on_streams_run_at_pinned_speed_in_order_one_copy_engine_each_way(tmp_path):
    session = run(
        tmp_path,
        """
        host = cuda.pinned_array((2, 1 << 16), np.float32)
        back = cuda.pinned_array((2, 1 << 16), np.float32)
        streams = [cuda.stream(), cuda.stream()]
        warm = cuda.device_array(1 << 16, np.float32)
        add[256, 256](warm, warm, warm)  # compiled before the streams start
        for k, s in enumerate(streams):
            d = cuda.to_device(host[k], stream=s)
            o = cuda.device_array(1 << 16, np.float32)
            add[256, 256, s](d, d, o)
            o.copy_to_host(back[k], stream=s)
        cuda.synchronize()
    """,
    )
    spans, timeline = spans_of(session)
    copies = [s for s in spans if s.kind in (COPY_IN, COPY_OUT)]
    assert all(s.pinned for s in copies) and {s.stream for s in copies} == {1, 2}
    assert copies[0].us == pytest.approx(
        model.COPY_LATENCY_US + (1 << 18) / (model.PINNED_GBPS["copy in"] * 1e3), abs=1e-3
    )
    for stream in (1, 2):  # in order within a stream
        mine = [s for s in spans if s.stream == stream]
        assert all(a.end_us <= b.start_us for a, b in zip(mine, mine[1:]))
    ins = [s for s in spans if s.kind == COPY_IN]
    assert ins[0].end_us <= ins[1].start_us  # one copy engine each way: copies in do not overlap each other
    assert measure(timeline, "streams") == 3  # the default stream's warm-up and the two streams


def test_pageable_copies_hold_the_host_so_nothing_overlaps(tmp_path):
    session = run(
        tmp_path,
        """
        host = np.ones((2, 1 << 16), np.float32); back = np.zeros_like(host)
        streams = [cuda.stream(), cuda.stream()]
        for k, s in enumerate(streams):
            d = cuda.to_device(host[k], stream=s)
            o = cuda.device_array(1 << 16, np.float32)
            add[256, 256, s](d, d, o)
            o.copy_to_host(back[k], stream=s)
        cuda.synchronize()
    """,
    )
    _, timeline = spans_of(session)
    assert not any(s.pinned for s in timeline.spans) and measure(timeline, "overlap") == 0


def test_the_default_stream_waits_for_every_stream(tmp_path):
    clock = StreamClock()
    clock.host = 0.0
    pinned = np.zeros(1 << 20, np.float32).view(PinnedArray)
    slow = clock.copy(COPY_IN, pinned, stream=1)
    kernel = clock.kernel("k", 100.0, stream=0)
    assert kernel.start_us >= slow.end_us


def test_events_read_the_model_clock_and_the_first_launch_includes_the_compile(tmp_path):
    session = run(
        tmp_path,
        """
        d = cuda.to_device(np.ones(256, np.float32)); out = cuda.device_array(256, np.float32)
        start, end = cuda.event(), cuda.event()
        times = []
        for _ in range(2):
            start.record()
            add[1, 256](d, d, out)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        print(times)
    """,
    )
    _, timeline = spans_of(session)
    first, second = timeline.elapsed
    kernel = [s for s in timeline.spans if s.kind == KERNEL][1]
    assert first * 1000 > model.FIRST_COMPILE_US and second * 1000 == pytest.approx(
        kernel.end_us - kernel.start_us + model.LAUNCH_US, abs=model.ISSUE_US
    )
    assert len([s for s in timeline.spans if s.kind == EVENT]) == 4


def test_an_event_never_recorded_says_so(tmp_path):
    with pytest.raises(Exception, match="never recorded"):
        run(
            tmp_path,
            """
            start, end = cuda.event(), cuda.event()
            end.record()
            start.elapsed_time(end)
        """,
        )


def test_mapped_arrays_and_cupy_arrays_are_not_copied(tmp_path):
    session = run(
        tmp_path,
        """
        a = cuda.mapped_array(256, np.float32); a[:] = 1
        out = cuda.mapped_array(256, np.float32)
        add[1, 256](a, a, out)
        assert (out == 2).all()
    """,
    )
    spans, _ = spans_of(session)
    assert [s.kind for s in spans] == [COMPILE, KERNEL]


def timeline_of_spans(*spans):
    return StreamTimeline(tuple(Span(*s) for s in spans), MODEL)


def test_measures_add_up_copies_kernels_and_their_overlap():
    timeline = timeline_of_spans((COPY_IN, 1, 0, 10, "a"), (KERNEL, 1, 10, 20, "k"), (COPY_IN, 2, 12, 22, "b"),
                                 (KERNEL, 2, 22, 30, "k"), (COMPILE, HOST, 0, 5000, "k"))  # fmt: skip
    assert measure(timeline, "copies") == 20 and measure(timeline, "kernels") == 18
    assert measure(timeline, "overlap") == 8 and measure(timeline, "span") == 30
    assert measure(timeline, "kernel share") == pytest.approx(100 * 18 / 30)
    assert measure(timeline, "streams") == 2


def test_the_layout_gives_each_stream_a_copies_and_a_kernels_row_and_cuts_long_gaps():
    timeline = timeline_of_spans((COPY_IN, 0, 0, 10, "a"), (COMPILE, HOST, 10, 250_010, "k"),
                                 (KERNEL, 0, 250_020, 250_022, "k"), (COPY_OUT, 0, 250_022, 250_032, "a"))  # fmt: skip
    placed = layout(timeline)
    assert placed.rows == ("host: compile", "default stream: copies", "default stream: kernels")
    assert placed.row_of == (1, 0, 2, 1)
    (cut,) = placed.cuts
    assert (cut.start_us, cut.end_us) == (10, 250_020) and cut.end_us - cut.start_us > GAP_US
    assert placed.x(250_020) == pytest.approx(10 + cut.width) and placed.x(250_032) == pytest.approx(22 + cut.width)
    assert placed.x(5) == 5  # before the cut, the clock as it is


def test_marks_name_spans_with_a_labelled_call_out():
    timeline = timeline_of_spans((COPY_IN, 1, 0, 10, "a"), (KERNEL, 1, 10, 20, "k"), (COPY_IN, 2, 12, 22, "b"))
    assert resolve_spans("copies", timeline) == ((0, 2), "2 copies: 20 µs in all (model)")
    assert resolve_spans("overlap", timeline)[0] == (1, 2)
    with pytest.raises(Exception, match="the run has none"):
        resolve_spans("the compile", timeline)
    with pytest.raises(Exception, match="marks there: copies; kernels"):
        resolve_spans("everything", timeline)
