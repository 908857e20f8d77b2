"""The GPU backend's measured timeline placed on one clock, with hand-made events (no GPU): each span's
start and end are its events' times from the origin event, on the stream it was queued on."""

from types import SimpleNamespace

from gpuviz.backends.gpu.stream_timer import MeasuredTimeline
from gpuviz.core.streams import COPY_IN, COPY_OUT, EVENT, KERNEL, measure


class Clock:
    """A stand-in for numba.cuda: an event's time is the clock's when it was recorded, in ms."""

    def __init__(self) -> None:
        self.ms = 0.0
        self.running: set = set()  # events whose work is not done yet

    def event(self, timing: bool = True):
        return Event(self, timing)


class Event:
    def __init__(self, clock: Clock, timing: bool) -> None:
        self.clock, self.timing, self.at, self.stream = clock, timing, None, None

    def record(self, stream=0) -> None:
        self.at, self.stream = self.clock.ms, stream

    def query(self) -> bool:
        return self not in self.clock.running

    def synchronize(self) -> None:
        self.clock.running.discard(self)

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
    clock.ms = 5.0  # the origin is recorded at the first piece: times count from there
    timeline = MeasuredTimeline(clock, "card")
    a, b = timeline.new_stream("s1"), timeline.new_stream("s2")
    timeline.timed(COPY_IN, a, "to_device", 400, True, advance(clock, 1.0))
    timeline.timed(COPY_IN, b, "to_device", 400, True, advance(clock, 2.0))
    spans = timeline.snapshot().spans
    assert [(s.kind, s.stream, s.start_us, s.end_us, s.nbytes, s.pinned) for s in spans] == [
        (COPY_IN, 1, 0.0, 1000.0, 400, True), (COPY_IN, 2, 1000.0, 3000.0, 400, True)]  # fmt: skip
    assert timeline.snapshot().device == "card"


def test_work_still_running_waits_for_a_later_snapshot_unless_asked_to_wait():
    clock = Clock()
    timeline = MeasuredTimeline(clock, "card")
    timeline.timed(COPY_OUT, 0, "copy_to_host", 8, False, advance(clock, 1.0))
    clock.running.add(timeline.pending[-1].stop)
    assert timeline.snapshot().spans == ()
    assert [s.kind for s in timeline.snapshot(wait=True).spans] == [COPY_OUT]
    assert timeline.pending == []


def test_a_launch_on_a_script_stream_is_timed_by_its_twin_there_and_overlaps_the_copy_beside_it():
    clock = Clock()
    queued = []

    def twin(stream):  # the kernel queued on the stream: 3 ms from now
        start, stop = clock.event(), clock.event()
        start.record(stream)
        stop.record(stream)
        stop.at = start.at + 3.0
        queued.append(stream)
        return start, stop, ["copies"]

    timeline = MeasuredTimeline(clock, "card", twin)
    one, two = timeline.new_stream("s1"), timeline.new_stream("s2")
    recorded = [KERNEL, "k", 0, 9.0, clock.event(), clock.event()]  # the recorded kernel: not its span
    timeline.add_launch(launch_trace([recorded]), (), one)
    timeline.timed(COPY_IN, two, "to_device", 4, True, advance(clock, 2.0))  # runs while the kernel does
    timeline_now = timeline.snapshot()
    assert queued == ["s1"]
    assert [(s.kind, s.stream, s.start_us, s.end_us) for s in timeline_now.spans] == [
        (COPY_IN, 2, 0.0, 2000.0), (KERNEL, 1, 0.0, 3000.0)]  # fmt: skip
    assert measure(timeline_now, "overlap") == 2000.0


def test_a_launch_with_implicit_copies_keeps_the_recorded_pieces_on_its_stream():
    clock = Clock()
    timeline = MeasuredTimeline(clock, "card", twin=lambda stream: None)
    timeline.start()
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
    timeline.start()
    clock.ms = 2.5
    timed, untimed = clock.event(), clock.event(timing=False)
    timed.record()
    untimed.record()
    timeline.event(timed, 0)
    timeline.event(untimed, 0)
    assert [(s.kind, s.start_us, s.end_us) for s in timeline.snapshot().spans] == [(EVENT, 2500.0, 2500.0)]
