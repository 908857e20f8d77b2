"""Marks on the stream timeline (core/streams.py): the spans a lesson's claim is about, with a call-out
computed from them ("6 copies: 56 µs in all (model)"). The Streams view outlines them.

    copies               every copy in and out
    kernels              every kernel
    the compile          numba compiling a kernel on the host
    overlap              the copies that run while a kernel does, and those kernels
"""

from __future__ import annotations

from gpuviz.core.errors import GpuvizError
from gpuviz.core.numbers import number
from gpuviz.core.streams import COMPILE, COPY_IN, COPY_OUT, KERNEL, Span, StreamTimeline, label_of

KINDS = ("copies", "kernels", "the compile", "overlap")
NOUNS = {"copies": ("copy", "copies"), "kernels": ("kernel", "kernels"), "the compile": ("compile", "compiles")}


def resolve_spans(text: str, timeline: StreamTimeline | None) -> tuple[tuple[int, ...], str]:
    """The indices of the spans the words name and the call-out; a GpuvizError when there are none."""
    if text not in KINDS:
        raise GpuvizError(f"mark {text!r} is not known on the stream timeline; marks there: {'; '.join(KINDS)}")
    if timeline is None:
        raise GpuvizError(f"mark {text!r}: this launch carries no stream timeline")
    spans = timeline.spans
    wanted = {"copies": (COPY_IN, COPY_OUT), "kernels": (KERNEL,), "the compile": (COMPILE,)}
    if text == "overlap":
        chosen = [i for i, s in enumerate(spans) if s.kind in (COPY_IN, COPY_OUT, KERNEL) and _overlaps(s, spans)]
    else:
        chosen = [i for i, s in enumerate(spans) if s.kind in wanted[text]]
    if not chosen:
        raise GpuvizError(f"mark {text!r}: the run has none")
    return tuple(chosen), _callout(text, [spans[i] for i in chosen], timeline)


def _overlaps(span: Span, spans: tuple[Span, ...]) -> bool:
    """A copy that runs while a kernel does (or such a kernel)."""
    other = (KERNEL,) if span.kind != KERNEL else (COPY_IN, COPY_OUT)
    return any(s.kind in other and min(s.end_us, span.end_us) > max(s.start_us, span.start_us) for s in spans)


def _callout(text: str, spans: list[Span], timeline: StreamTimeline) -> str:
    total = sum(s.us for s in spans)
    where = label_of(timeline)
    if text == "overlap":
        copies = sum(1 for s in spans if s.kind != KERNEL)
        return f"{copies} copies run while a kernel does {where}"
    noun = NOUNS[text][0 if len(spans) == 1 else 1]
    return f"{len(spans)} {noun}: {time_words(total)} in all {where}"


def time_words(us: float) -> str:
    """µs below a millisecond, ms above: `9.3 µs`, `250 ms`."""
    if us >= 1000:
        return f"{number(round(us / 1000, 2 if us < 10_000 else 0))} ms"
    return f"{number(round(us, 1))} µs"
