"""The GPU backend's timeline: the script's own copies, its launches and its events, each timed with CUDA
events recorded on its own stream (measured), all placed on one clock: each event's time from one origin
event recorded when the timeline began. Work on different streams that ran at once shows as overlapping
spans."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field

from gpuviz.core.fidelity import MEASURED
from gpuviz.core.streams import DEFAULT, EVENT, KERNEL, Span, StreamTimeline


class EventTimer:
    """Times pieces of a recorded launch on the default stream with a pair of CUDA events each."""

    def __init__(self, cuda) -> None:
        self.cuda = cuda
        self.pieces: list[list] = []  # [kind, label, bytes, ms, start event, stop event]

    def timed(self, kind: str, label: str, nbytes: int, work) -> object:
        start, stop = self.cuda.event(), self.cuda.event()
        start.record()
        result = work()
        stop.record()
        stop.synchronize()
        self.pieces.append([kind, label, int(nbytes), float(start.elapsed_time(stop)), start, stop])
        return result


@dataclass
class Pending:
    """A piece of work queued on a stream, not yet read off its events (it may still be running)."""

    kind: str
    stream: int
    label: str
    nbytes: int
    pinned: bool
    start: object  # CUDA events recorded on the work's stream before and after it
    stop: object
    keep: list = field(default_factory=list)  # what must live until the work is done (a twin's arguments)


# Queues numba's own compile of the last launch's kernel on a stream, on copies of that launch's arguments
# as they were before it: (start event, stop event, what to keep alive), or None where it cannot.
Twin = Callable[[object], "tuple[object, object, list] | None"]


class MeasuredTimeline:
    """A run's measured spans. The origin event is recorded at the first piece of work timed, so every
    piece's time is `origin.elapsed_time(its event)`: one clock for every stream."""

    def __init__(self, cuda, device: str, twin: Twin | None = None) -> None:
        self.cuda, self.device, self.twin = cuda, device, twin
        self.origin = None
        self.pending: list[Pending] = []
        self.spans: list[Span] = []
        self.elapsed: list[float] = []  # ms, each event time the script read
        self.streams: dict[int, object] = {DEFAULT: 0}  # the timeline's number -> numba's stream

    def start(self) -> None:
        """Record the origin (on the default stream, which waits for every stream) if not yet done."""
        if self.origin is None:
            self.origin = self.cuda.event()
            self.origin.record()

    def new_stream(self, stream) -> int:
        number = len(self.streams)
        self.streams[number] = stream
        return number

    def timed(self, kind: str, stream: int, label: str, nbytes: int, pinned: bool, work: Callable[[], object]):
        """Run `work` (which queues something on the stream) between two events recorded on that stream."""
        self.start()
        on = self.streams.get(stream, 0)
        begin, end = self.cuda.event(), self.cuda.event()
        begin.record(on)
        result = work()
        end.record(on)
        self.pending.append(Pending(kind, stream, label, int(nbytes), pinned, begin, end))
        return result

    def event(self, event, stream: int) -> None:
        """A script's event record: a span of no length where its stream's earlier work is done."""
        self.start()
        self.pending.append(Pending(EVENT, stream, "event", 0, False, event, event))

    def add_launch(self, trace, args: tuple, stream: int) -> None:
        """The recorded launch's implicit copies and kernel ran on the default stream, synchronously. On a
        stream of the script's, with no implicit copies, numba's own compile of the kernel is queued there
        once more on copies of its arguments, so its span runs beside the other streams' work."""
        self.start()
        pieces = trace.meta.pop("launch_times", [])
        twin = self.twin(self.streams[stream]) if stream != DEFAULT and len(pieces) == 1 and self.twin else None
        if twin is not None:
            begin, end, keep = twin
            self.pending.append(Pending(KERNEL, stream, trace.kernel, 0, False, begin, end, keep))
            return
        for kind, label, nbytes, _, begin, end in pieces:
            self.pending.append(Pending(kind, stream, label, nbytes, False, begin, end))

    def snapshot(self, wait: bool = False) -> StreamTimeline:
        """Every span whose work is done (with `wait`, every span: the host waits for its work)."""
        left = []
        for piece in self.pending:
            if wait or _done(piece.stop):
                self.spans.extend(self._span(piece))
            else:
                left.append(piece)
        self.pending = left
        spans = tuple(sorted(self.spans, key=lambda s: (s.start_us, s.end_us)))
        today = datetime.date.today().isoformat()
        return StreamTimeline(spans, MEASURED, self.device, today, tuple(self.elapsed))

    def _span(self, piece: Pending) -> list[Span]:
        """The piece's span, or none for an event made without timing (`cuda.event(timing=False)`)."""
        piece.stop.synchronize()
        try:
            start = _us(self.origin, piece.start)
            end = start if piece.stop is piece.start else _us(self.origin, piece.stop)
        except Exception:
            if piece.kind == EVENT:
                return []
            raise
        return [Span(piece.kind, piece.stream, start, end, piece.label, piece.nbytes, piece.pinned)]


def _done(event) -> bool:
    query = getattr(event, "query", None)  # numba's CUDA simulator's events have none: done at once
    return True if query is None else bool(query())


def _us(origin, event) -> float:
    return max(0.0, float(origin.elapsed_time(event)) * 1000.0)
