"""The GPU backend's measured timeline placed on one clock, with hand-made events (no GPU): each span's
start and end are its events' times from the origin event, on the stream it was queued on."""

from types import SimpleNamespace

from gpuviz.backends.gpu.stream_timer import MeasuredTimeline
from gpuviz.core.streams import COPY_IN, COPY_OUT, EVENT, KERNEL, measure


class Clock:
    """A stand-in for numba.cuda: an event's time is the clock's when it was recorded, in ms."""

    def __init__(self) -> None:
        self.ms = 0.0

    def event(self, timing: bool = True):
        return Event(self, timing)


class Event:
    def __init__(self, clock: Clock, timing: bool) -> None:
        self.clock, self.timing, self.at, self.stream = clock, timing, None, None

    def record(self, stream=0) -> None:
        self.at, self.stream = self.clock.ms, stream

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, other) -> float:
        if not (self.timing and other.timing):
            raise RuntimeError("an event made without timing")
        return other.at - self.at


def advance(clock: Clock, ms: float):
    def work():
        clock.ms += ms

    return work


def launch_trace(pieces: list) -> SimpleNamespace:
    return SimpleNamespace(kernel="k", meta={"launch_times": pieces})


def test_spans_take_their_events_times_from_the_origin_on_their_own_streams():
    clock = Clock()
    clock.ms = 5.0  # the origin is recorded when the timeline is made: times count from there
    timeline = MeasuredTimeline(clock, "card")
    a, b = timeline.new_stream("s1"), timeline.new_stream("s2")
    timeline.timed(COPY_IN, a, "to_device", 400, True, advance(clock, 1.0))
    timeline.timed(COPY_IN, b, "to_device", 400, True, advance(clock, 2.0))
    spans = timeline.snapshot().spans
    assert [(s.kind, s.stream, s.start_us, s.end_us, s.nbytes, s.pinned) for s in spans] == [
        (COPY_IN, 1, 0.0, 1000.0, 400, True), (COPY_IN, 2, 1000.0, 3000.0, 400, True)]  # fmt: skip
    assert timeline.snapshot().device == "card"


def fake_twin(clock: Clock, queued: list, ms: float = 3.0):
    """A twin kernel of `ms` that, once queued on a stream, runs from the clock's time then."""

    def prepare(stream):
        def queue():
            start, stop = clock.event(), clock.event()
            start.record(stream)
            stop.record(stream)
            stop.at = start.at + ms
            queued.append(stream)
            return start, stop, ["copies"]

        return queue

    return prepare


def test_a_launch_on_a_script_stream_is_timed_by_its_twin_queued_at_the_next_call_and_overlaps_that_copy():
    clock, queued = Clock(), []
    timeline = MeasuredTimeline(clock, "card", fake_twin(clock, queued))
    one, two = timeline.new_stream("s1"), timeline.new_stream("s2")
    recorded = [KERNEL, "k", 0, 9.0, clock.event(), clock.event()]  # the recorded kernel: not its span
    clock.ms = 4.0
    timeline.add_launch(launch_trace([recorded]), (), one)
    assert queued == [] and timeline.snapshot().spans == ()  # not yet queued: the script has not gone on
    clock.ms = 10.0  # gpuviz's own work after the launch: not between the kernel and the next copy
    timeline.timed(COPY_IN, two, "to_device", 4, True, advance(clock, 2.0))  # runs while the kernel does
    spans = timeline.snapshot().spans
    assert queued == ["s1"]
    assert [(s.kind, s.stream, s.start_us, s.end_us) for s in spans] == [
        (COPY_IN, 2, 10000.0, 12000.0), (KERNEL, 1, 10000.0, 13000.0)]  # fmt: skip
    assert measure(timeline.snapshot(), "overlap") == 2000.0


def test_the_run_s_end_queues_a_twin_still_waiting():
    clock, queued = Clock(), []
    timeline = MeasuredTimeline(clock, "card", fake_twin(clock, queued))
    timeline.add_launch(launch_trace([[KERNEL, "k", 0, 1.0, clock.event(), clock.event()]]), (),
                        timeline.new_stream("s1"))  # fmt: skip
    assert [(s.kind, s.stream) for s in timeline.snapshot(wait=True).spans] == [(KERNEL, 1)]


def test_a_launch_on_the_default_stream_keeps_its_recorded_pieces_and_queues_no_twin():
    clock, queued = Clock(), []
    timeline = MeasuredTimeline(clock, "card", fake_twin(clock, queued))
    start, stop = clock.event(), clock.event()
    start.record()
    clock.ms += 2.0
    stop.record()
    timeline.add_launch(launch_trace([[KERNEL, "k", 0, 2.0, start, stop]]), (), 0)
    assert queued == [] and [(s.stream, s.us) for s in timeline.snapshot(wait=True).spans] == [(0, 2000.0)]


def test_a_launch_with_implicit_copies_keeps_the_recorded_pieces_on_its_stream():
    clock = Clock()
    timeline = MeasuredTimeline(clock, "card", twin=lambda stream: None)
    pieces = []
    for kind, ms in ((COPY_IN, 1.0), (KERNEL, 2.0), (COPY_OUT, 1.0)):
        start, stop = clock.event(), clock.event()
        start.record()
        clock.ms += ms
        stop.record()
        pieces.append([kind, "a", 4, ms, start, stop])
    timeline.add_launch(launch_trace(pieces), (), 0)
    spans = timeline.snapshot().spans
    assert [(s.kind, s.start_us, s.end_us) for s in spans] == [
        (COPY_IN, 0.0, 1000.0), (KERNEL, 1000.0, 3000.0), (COPY_OUT, 3000.0, 4000.0)]  # fmt: skip


def test_events_are_points_and_an_event_without_timing_is_left_out():
    clock = Clock()
    timeline = MeasuredTimeline(clock, "card")
    clock.ms = 2.5
    timed, untimed = clock.event(), clock.event(timing=False)
    timed.record()
    untimed.record()
    timeline.event(timed, 0)
    timeline.event(untimed, 0)
    assert [(s.kind, s.start_us, s.end_us) for s in timeline.snapshot().spans] == [(EVENT, 2500.0, 2500.0)]
