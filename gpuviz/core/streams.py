"""Copies, kernel launches and events on a timeline per stream: what a script's host code asked of the
GPU and when each piece ran. The simulator models these times, the GPU backend measures them; the
spans travel in a trace's meta["streams"], and what they add up to is a pure function of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from gpuviz.core.fidelity import MODEL, label

COPY_IN, COPY_OUT, KERNEL, COMPILE, EVENT = "copy in", "copy out", "kernel", "compile", "event"
KINDS = (COPY_IN, COPY_OUT, KERNEL, COMPILE, EVENT)
HOST = -1  # the "stream" of work the host does itself (numba compiling a kernel)
DEFAULT = 0  # the default stream; streams a script makes are numbered from 1


@dataclass(frozen=True)
class Span:
    """One piece of work on one stream, in microseconds from the run's first piece."""

    kind: str  # one of KINDS
    stream: int  # HOST, DEFAULT or a stream the script made
    start_us: float
    end_us: float
    label: str  # the kernel's or array's name
    nbytes: int = 0  # copies: how many bytes
    pinned: bool = False  # copies: from or to page-locked host memory

    @property
    def us(self) -> float:
        return self.end_us - self.start_us

    def to_json(self) -> list:
        return [self.kind, self.stream, round(self.start_us, 4), round(self.end_us, 4), self.label, self.nbytes,
                self.pinned]  # fmt: skip

    @staticmethod
    def from_json(row: list) -> Span:
        kind, stream, start, end, label, nbytes, pinned = row
        return Span(str(kind), int(stream), float(start), float(end), str(label), int(nbytes), bool(pinned))


@dataclass(frozen=True)
class StreamTimeline:
    spans: tuple[Span, ...]
    fidelity: str  # MODEL (the simulator) or MEASURED (CUDA events on a GPU)
    device: str = ""  # the card and the day, for measured spans
    date: str = ""
    elapsed: tuple[float, ...] = ()  # ms: each `elapsed_time` the script read of two events, in order

    def to_json(self) -> dict:
        return {"fidelity": self.fidelity, "device": self.device, "date": self.date,
                "spans": [s.to_json() for s in self.spans], "elapsed": [round(e, 6) for e in self.elapsed]}  # fmt: skip

    @staticmethod
    def from_json(data: dict) -> StreamTimeline:
        spans = tuple(Span.from_json(row) for row in data.get("spans", []))
        fidelity, device, date = (str(data.get(k, d)) for k, d in (("fidelity", MODEL), ("device", ""), ("date", "")))
        elapsed = tuple(float(e) for e in data.get("elapsed", []))
        return StreamTimeline(spans, fidelity, device, date, elapsed)


class Timeline(Protocol):
    """What a session keeps of a run's copies, launches and events (backends/*/: modelled or measured)."""

    def add_launch(self, trace, args: tuple, stream: int) -> None:
        """The launch's implicit copies (NumPy arguments), its compile where it is the kernel's first, and
        the kernel itself."""

    def snapshot(self, wait: bool = False) -> StreamTimeline:
        """Every span so far whose work is done (with `wait`: the host waits for all of it first)."""


def timeline_of(trace) -> StreamTimeline | None:
    """The stream timeline a trace carries (up to the end of its launch, or of the run for its last one)."""
    data = trace.meta.get("streams") if trace is not None else None
    return StreamTimeline.from_json(data) if isinstance(data, dict) and data.get("spans") else None


def overlap_us(spans: tuple[Span, ...]) -> float:
    """How long a copy and a kernel ran at the same time."""
    copies = _union([s for s in spans if s.kind in (COPY_IN, COPY_OUT)])
    kernels = _union([s for s in spans if s.kind == KERNEL])
    total = 0.0
    for a0, a1 in copies:
        for b0, b1 in kernels:
            total += max(0.0, min(a1, b1) - max(a0, b0))
    return total


def _union(spans: list[Span]) -> list[tuple[float, float]]:
    merged: list[list[float]] = []
    for s in sorted(spans, key=lambda s: s.start_us):
        if merged and s.start_us <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], s.end_us)
        else:
            merged.append([s.start_us, s.end_us])
    return [(a, b) for a, b in merged]


def _work(timeline: StreamTimeline) -> list[Span]:
    return [s for s in timeline.spans if s.kind in (COPY_IN, COPY_OUT, KERNEL)]


def _span(spans: list[Span]) -> float:
    """From the first copy or kernel's start to the last one's end: the GPU's part of the run."""
    return max(s.end_us for s in spans) - min(s.start_us for s in spans) if spans else 0.0


def _busy(spans: list[Span]) -> float:
    return sum(b - a for a, b in _union(spans))


MEASURES = {  # `timeline(NAME)` in a lesson's checks: microseconds, or a count, or a percentage
    "copies": lambda t: _busy([s for s in t.spans if s.kind in (COPY_IN, COPY_OUT)]),
    "kernels": lambda t: _busy([s for s in t.spans if s.kind == KERNEL]),
    "compile": lambda t: sum(s.us for s in t.spans if s.kind == COMPILE),
    "span": lambda t: _span(_work(t)),
    "busy": lambda t: _busy(_work(t)),  # copying, computing or both
    "overlap": lambda t: overlap_us(t.spans),
    "streams": lambda t: len({s.stream for s in t.spans if s.kind in (COPY_IN, COPY_OUT, KERNEL)}),
    # of the time the GPU was busy copying or computing, the share a kernel ran in
    "kernel share": lambda t: 100.0 * MEASURES["kernels"](t) / max(_busy(_work(t)), 1e-9),
}


def measure(timeline: StreamTimeline, name: str) -> float | None:
    """A measure of MEASURES, or `elapsed N`: the N-th event time the script read, in ms (None: not read)."""
    if name.startswith("elapsed "):
        index = int(name.removeprefix("elapsed "))
        return timeline.elapsed[index] if index < len(timeline.elapsed) else None
    if name not in MEASURES:
        raise ValueError(f"timeline({name}): unknown; known: {', '.join(MEASURES)}, elapsed N")
    return float(MEASURES[name](timeline))


def label_of(timeline: StreamTimeline) -> str:
    """How far its times can be trusted, as views and call-outs write it: `(model)`, `(measured: CARD, DATE)`."""
    return label(timeline.fidelity, timeline.device, timeline.date)
