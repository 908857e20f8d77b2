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


# Prepares numba's own compile of the last launch's kernel for a stream, on copies of that launch's
# arguments as they were before it (None where it cannot); calling what it returns queues the kernel and
# gives (start event, stop event, what to keep alive until it is done).
Twin = Callable[[object], "Callable[[], tuple[object, object, list]] | None"]


class MeasuredTimeline:
    """A run's measured spans. The origin event is recorded when the timeline is made (before the run's
    first piece of work), so every piece's time is `origin.elapsed_time(its event)`: one clock for every
    stream."""

    def __init__(self, cuda, device: str, twin: Twin | None = None) -> None:
        self.cuda, self.device, self.twin = cuda, device, twin
        self.origin = None
        self.pending: list[Pending] = []
        self.spans: list[Span] = []
        self.elapsed: list[float] = []  # ms, each event time the script read
        self.streams: dict[int, object] = {DEFAULT: 0}  # the timeline's number -> numba's stream
        self.deferred: tuple | None = None  # (queue, stream, kernel): a twin waiting for the script's next call
        self.start()

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
        self.flush()
        on = self.streams.get(stream, 0)
        begin, end = self.cuda.event(), self.cuda.event()
        begin.record(on)
        result = work()
        end.record(on)
        self.pending.append(Pending(kind, stream, label, int(nbytes), pinned, begin, end))
        return result

    def event(self, event, stream: int) -> None:
        """A script's event record: a span of no length where its stream's earlier work is done."""
        self.flush()
        self.pending.append(Pending(EVENT, stream, "event", 0, False, event, event))

    def add_launch(self, trace, args: tuple, stream: int) -> None:
        """The recorded launch's implicit copies and kernel ran on the default stream, synchronously. On a
        stream of the script's, with no implicit copies, numba's own compile of the kernel runs there once
        more on copies of its arguments: its span. It is queued at the script's next call to numba.cuda,
        as the script queued it, so that gpuviz's own work after a recorded launch (its analysis) does not
        stand between the kernel and the other streams' work."""
        self.flush()
        pieces = trace.meta.pop("launch_times", [])
        queue = self.twin(self.streams[stream]) if stream != DEFAULT and len(pieces) == 1 and self.twin else None
        if queue is not None:
            self.deferred = (queue, stream, trace.kernel)
            return
        for kind, label, nbytes, _, begin, end in pieces:
            self.pending.append(Pending(kind, stream, label, nbytes, False, begin, end))

    def flush(self) -> None:
        """Queue the twin kernel that waits for the script's next call."""
        if self.deferred is not None:
            queue, stream, kernel = self.deferred
            self.deferred = None
            begin, end, keep = queue()
            self.pending.append(Pending(KERNEL, stream, kernel, 0, False, begin, end, keep))

    def snapshot(self, wait: bool = False) -> StreamTimeline:
        """Every span so far; a twin kernel not yet queued only `wait` (the run's end) queues. The host
        waits for each span's work: after a recorded launch, which ran on the default stream (it waits
        for every stream), that work is done."""
        if wait:
            self.flush()
        for piece in self.pending:
            self.spans.extend(self._span(piece))
        self.pending = []
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


def _us(origin, event) -> float:
    return float(origin.elapsed_time(event)) * 1000.0
