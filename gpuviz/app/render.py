"""Draw a trace without a window: what `gpuviz render` and the notebook show (a picture of one view at a
frame of the animation, with a thread selected, in chosen colours)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuviz.core.analysis.report import analyse, is_analysed
from gpuviz.core.colors import MODES
from gpuviz.core.cursor import frame_at_time, parse_element
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import ORDERS, REPLAY
from gpuviz.core.trace import Trace, load


@dataclass(frozen=True)
class Shown:
    """What a picture shows of a trace: a frame (`at`), a selected thread, the colours and the order."""

    at: str | int | float | None = None  # a frame index, or a fraction of the run like 0.5; None: the last
    select: int = -1  # a global thread id, -1 for none
    colour: str = MODES[0]
    order: str = ORDERS[0]  # the replay, where the trace has accesses (else the first order that fits)
    element: str | None = None  # an element to pick, e.g. "array[0]" (the element story tells it)


def frame_at(at: str | int | float | None, count: int, what: str = "--at", times=None) -> int:
    """A frame index from an index (3), a fraction of the frames (0.5, 1.0) or, in the replay, a time
    (t=1240: see core/cursor.py); None is the last frame."""
    last = max(0, count - 1)
    if at is None:
        return last
    text = str(at).strip()
    if text.startswith("t="):
        return frame_at_time(text, count, times)
    try:
        value = float(text) if ("." in text or isinstance(at, float)) else int(text)
    except ValueError:
        raise GpuvizError(f"{what} {at!r}: give a frame index (0 to {last}) or a fraction like 0.5") from None
    if isinstance(value, float):
        if not 0.0 <= value <= 1.0:
            raise GpuvizError(f"{what} {at!r}: a fraction of the run is 0.0 to 1.0")
        return round(value * last)
    if not 0 <= value <= last:
        raise GpuvizError(f"{what} {at!r}: this launch has {count} frames, 0 to {last} (or give a fraction like 0.5)")
    return value


def as_trace(trace: Trace | str | Path) -> Trace:
    """A trace, or a trace file loaded, with its analysis (old files did not store it)."""
    if not isinstance(trace, Trace):
        trace = load(trace)
    if not is_analysed(trace):
        trace.analysis = analyse(trace)
    return trace


def show(state, trace: Trace, shown: Shown = Shown()) -> None:
    """Make an app state show `trace` as `shown` says."""
    if shown.colour not in MODES:
        raise GpuvizError(f"unknown colours {shown.colour!r}; colour by: {', '.join(MODES)}")
    if shown.order not in ORDERS:
        raise GpuvizError(f"unknown order {shown.order!r}; orders: {', '.join(ORDERS)}")
    if not -1 <= shown.select < trace.n_threads:
        raise GpuvizError(f"--select {shown.select}: this launch has threads 0 to {trace.n_threads - 1}")
    state.set_colour_mode(shown.colour)
    state.set_order(shown.order)
    state.set_trace(trace)
    times = state.replay.times if state.replay is not None and state.order == REPLAY else None
    state.set_frame(frame_at(shown.at, state.plan.count, times=times))
    state.select(shown.select)
    if shown.element is not None:
        aid, index = parse_element(shown.element, trace.meta.get("arrays", []))
        state.select_element((aid, index, None))


def slide_for(trace: Trace | str | Path, view: str, shown: Shown = Shown(), theme: str = "dark"):
    """A slide of one view showing a trace (a trace file is loaded first: its errors come before Qt's)."""
    from gpuviz.app.picture import Slide, qt_app

    trace = as_trace(trace)
    qt_app()
    slide = Slide(view, theme)
    show(slide.state, trace, shown)
    return slide


def render_picture(trace: Trace | str | Path, view: str, out: str | Path, options=None, shown: Shown = Shown()) -> Path:
    """Draw one view of a trace into a PNG or SVG, with its title, legend and caption."""
    from gpuviz.app.picture import FORMATS, PictureOptions, write_picture

    if Path(out).suffix.lower() not in FORMATS:
        raise GpuvizError(f"cannot render to {Path(out).name}: use a .png or .svg file name")
    options = options or PictureOptions()
    slide = slide_for(trace, view, shown, options.theme)
    try:
        return write_picture(slide, out, options)
    finally:
        slide.close()



def render_clip(trace: Trace | str | Path, view: str, out: str | Path, options=None, shown: Shown = Shown(),
                fps: float = 8, start=None, stop=None) -> Path:  # fmt: skip
    """Write the animation's frames from `start` to `stop` of one view as a GIF or MP4."""
    from gpuviz.app.clip import WRITERS, frame_range, write_clip
    from gpuviz.app.picture import PictureOptions

    if Path(out).suffix.lower() not in WRITERS:
        raise GpuvizError(f"cannot write a clip to {Path(out).name}: use a .gif or .mp4 file name")
    options = options or PictureOptions()
    slide = slide_for(trace, view, shown, options.theme)
    try:
        return write_clip(slide, out, frame_range(slide.state.plan.count, start, stop), options, fps)
    finally:
        slide.close()
