"""The GPU backend's timeline: each launch's implicit copies and its kernel, timed with CUDA events
(measured), laid on the host's clock in the order they ran on the default stream."""

from __future__ import annotations

import datetime
import time

from gpuviz.core.fidelity import MEASURED
from gpuviz.core.streams import DEFAULT, Span, StreamTimeline


class EventTimer:
    """Times pieces of work on the default stream with a pair of CUDA events each."""

    def __init__(self, cuda) -> None:
        self.cuda = cuda
        self.pieces: list[list] = []  # [kind, label, bytes, ms]

    def timed(self, kind: str, label: str, nbytes: int, work) -> object:
        start, stop = self.cuda.event(), self.cuda.event()
        start.record()
        result = work()
        stop.record()
        stop.synchronize()
        self.pieces.append([kind, label, int(nbytes), float(start.elapsed_time(stop))])
        return result


class MeasuredTimeline:
    """A run's measured spans. Explicit copies and streams in the script's own host code are not timed
    (numba's own calls run there): only what a launch does."""

    def __init__(self, device: str) -> None:
        self.origin = time.perf_counter()
        self.device = device
        self.spans: list[Span] = []

    def add_launch(self, trace, args: tuple, stream: int) -> None:
        pieces = trace.meta.pop("launch_times", [])
        total_us = sum(ms for *_, ms in pieces) * 1000.0
        at = max((time.perf_counter() - self.origin) * 1e6 - total_us, self.spans[-1].end_us if self.spans else 0.0)
        for kind, label, nbytes, ms in pieces:
            self.spans.append(Span(kind, DEFAULT, at, at + ms * 1000.0, label, nbytes, False))
            at += ms * 1000.0

    def snapshot(self) -> StreamTimeline:
        return StreamTimeline(tuple(self.spans), MEASURED, self.device, datetime.date.today().isoformat())
