"""Where the Streams view draws each span of a stream timeline (core/streams.py): a row per stream and
engine (its copies, its kernels; the host's compile on a row of its own), and an x axis with long idle
gaps cut short, so a 250 ms compile and 2 µs kernels fit one picture. Pure: tested without a window."""

from __future__ import annotations

from dataclasses import dataclass

from gpuviz.core.streams import COPY_IN, COPY_OUT, DEFAULT, EVENT, HOST, KERNEL, Span, StreamTimeline

GAP_US = 1000.0  # idle gaps longer than this are cut to BREAK_SHARE of the picture, their length written
BREAK_SHARE = 0.06


@dataclass(frozen=True)
class Cut:
    """An idle stretch drawn short: from `start_us` to `end_us` on the clock, `at` to `at + width` drawn."""

    start_us: float
    end_us: float
    at: float
    width: float


@dataclass(frozen=True)
class StreamLayout:
    rows: tuple[str, ...]  # row names, top to bottom
    row_of: tuple[int, ...]  # each span's row (-1: an event, drawn across its stream's rows)
    cuts: tuple[Cut, ...]

    def time_at(self, x: float) -> float:
        """The clock's time drawn at `x` (the inverse of `x`)."""
        shift = 0.0
        for cut in self.cuts:
            if x <= cut.at:
                break
            if x < cut.at + cut.width:
                return cut.start_us + (x - cut.at) / cut.width * (cut.end_us - cut.start_us)
            shift += (cut.end_us - cut.start_us) - cut.width
        return x + shift

    def in_cut(self, x: float) -> bool:
        """Whether `x` is drawn inside a cut (its clock time means little there)."""
        return any(cut.at < x < cut.at + cut.width for cut in self.cuts)

    def x(self, us: float) -> float:
        """Where a time is drawn: the clock, less what the cuts before it leave out."""
        shift = 0.0
        for cut in self.cuts:
            if us <= cut.start_us:
                break
            if us < cut.end_us:  # inside a cut: in proportion across its short width
                return cut.at + (us - cut.start_us) / (cut.end_us - cut.start_us) * cut.width
            shift += (cut.end_us - cut.start_us) - cut.width
        return us - shift


def row_name(stream: int, kind: str) -> str:
    if stream == HOST:
        return "host: compile"
    name = "default stream" if stream == DEFAULT else f"stream {stream}"
    return f"{name}: {'kernels' if kind == KERNEL else 'copies'}"


def layout(timeline: StreamTimeline) -> StreamLayout:
    spans = timeline.spans
    names: list[str] = []
    for s in sorted(spans, key=lambda s: (s.stream, s.kind == KERNEL)):
        name = row_name(s.stream, s.kind)
        if s.kind != EVENT and name not in names:
            names.append(name)
    row_of = tuple(-1 if s.kind == EVENT else names.index(row_name(s.stream, s.kind)) for s in spans)
    return StreamLayout(tuple(names), row_of, _cuts(spans))


def _cuts(spans: tuple[Span, ...]) -> tuple[Cut, ...]:
    """The idle gaps between the GPU's work longer than GAP_US, each drawn BREAK_SHARE of the busy time wide."""
    work = sorted((s.start_us, s.end_us) for s in spans if s.kind in (COPY_IN, COPY_OUT, KERNEL, EVENT))
    if not work:
        return ()
    merged = [list(work[0])]
    for a, b in work[1:]:
        if a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    busy = sum(b - a for a, b in merged)
    width = max(busy * BREAK_SHARE, 1e-3)
    cuts, removed = [], 0.0
    for (_, end), (start, _) in zip(merged, merged[1:]):
        if start - end > GAP_US:
            cuts.append(Cut(end, start, end - removed, width))
            removed += (start - end) - width
    return tuple(cuts)
