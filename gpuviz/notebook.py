"""gpuviz in Jupyter: `gpuviz.show(trace, ...)` gives a picture or a clip to show inline, `gpuviz.replay(trace)`
the interactive replay widget (the `notebook` extra), traces show themselves (the widget where it can be
made, a summary and the grid as well), and the `%%gpuviz` cell magic (`%load_ext gpuviz`) runs a cell with
its launches traced, showing a picture under each launch.

The grid, data, timeline and story pictures are drawn without Qt (gpuviz/images); the other views, and SVG,
are the desktop app's slides (gpuviz.app, imported only when one is drawn: Qt starts offscreen).
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from gpuviz.core import display
from gpuviz.core.analysis.report import as_trace
from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import LEVELS, RunOptions
from gpuviz.core.trace.model import Trace
from gpuviz.scene.scene import scene_at

SIZE, CLIP_SIZE, THEME = (960, 540), (640, 360), "dark"  # the app's colours
# The views drawn without Qt (gpuviz/images/picture.py VIEWS, imported when a picture is drawn: `import gpuviz`
# stays light, and loads no psygnal, which the GPU machines' test environment lacks).
QT_FREE_VIEWS = ("grid", "data", "timeline", "story")


def picture(
    trace: Trace | str | Path, view: str = "grid", at=None, select: int = -1, colour_by: str = "block",
    order: str = "logical", size=SIZE, scale: float = 1.0, theme: str = THEME, format: str = "png",
) -> bytes:  # fmt: skip
    """One view of a trace drawn with its title, legend and caption, as PNG (or SVG) bytes."""
    scene = scene_at(as_trace(trace), at=at, select=select, colour=colour_by, order=order)
    if view in QT_FREE_VIEWS and format == "png":
        from gpuviz.images.picture import picture_png

        return picture_png(scene, view, tuple(size), scale, theme)
    _need_qt(view, format)
    from gpuviz.app.pictures.picture import PictureOptions, picture_bytes  # the app's slides: Qt
    from gpuviz.app.pictures.render import slide_for

    slide = slide_for(scene, view, theme)
    try:
        return picture_bytes(slide, f".{format}", PictureOptions(tuple(size), scale, theme))
    finally:
        slide.close()


def clip(
    trace: Trace | str | Path, view: str = "grid", fps: float = 8, start=None, stop=None, colour_by: str = "block",
    order: str = "logical", size=CLIP_SIZE, theme: str = THEME,
) -> bytes:  # fmt: skip
    """The animation's frames from `start` to `stop` as GIF bytes."""
    scene = scene_at(as_trace(trace), colour=colour_by, order=order)
    if view in QT_FREE_VIEWS:
        from gpuviz.images.picture import clip_gif

        return clip_gif(scene, view, tuple(size), theme, fps, start, stop)
    import tempfile

    _need_qt(view, "gif")
    from gpuviz.app.pictures.picture import PictureOptions  # the app's slides: Qt
    from gpuviz.app.pictures.render import render_clip

    with tempfile.TemporaryDirectory() as folder:
        options = PictureOptions(tuple(size), 1.0, theme)
        return render_clip(scene, view, Path(folder) / "clip.gif", options, fps, start, stop).read_bytes()


def _need_qt(view: str, format: str) -> None:
    """The app's slides draw the other views and SVG: one line saying so where Qt is missing."""
    try:
        import pyqtgraph  # noqa: F401
        import PySide6  # noqa: F401
    except ImportError:
        raise GpuvizError(
            f"a {format} picture of the {view} view is drawn by the desktop app, which needs PySide6 and "
            f"pyqtgraph; without them: PNG and GIF of {', '.join(QT_FREE_VIEWS)}"
        ) from None


def show(trace: Trace | str | Path, view: str = "grid", at=None, animate: bool = False, **options):
    """A picture of a trace (PNG), or with animate=True its animation (GIF), to show in a notebook:
    an IPython Image where IPython is installed, else the bytes. Options: those of picture() or clip()."""
    data = clip(trace, view, **options) if animate else picture(trace, view, at, **options)
    try:
        from IPython.display import Image
    except ImportError:
        return data
    return Image(data=data, format="gif" if animate else "png")


def replay(trace: Trace | str | Path, views=("grid", "data"), at=None, select: int = -1, colour_by: str = "block",
           lesson: str | None = None):  # fmt: skip
    """The interactive replay of a trace (a widget): one time cursor over the views, play and step, the
    source at the current line, clicks that select in every view. `lesson` (a lesson's name, e.g. "the-race"):
    start on that lesson's evidence frame (its cursor, selection, colours, marks and caption) instead.
    Needs the `notebook` extra (anywidget)."""
    try:
        from gpuviz.widget.widget import ReplayWidget
    except ImportError as exc:
        raise GpuvizError(f"the replay widget needs anywidget ({exc}): pip install 'gpuviz[notebook]'") from None
    trace = as_trace(trace)
    scene = scene_at(trace, at=at, select=select, colour=colour_by, order="")
    if lesson is not None:
        scene = evidence_scene(trace, lesson)
        views = tuple(views) if scene.view in views or scene.view not in QT_FREE_VIEWS else (scene.view, *views)
    return ReplayWidget(trace, views, scene)


def evidence_scene(trace: Trace, lesson: str):
    """A lesson's evidence frame on a trace of its kernel (catalog/evidence.py resolves every word of it)."""
    from gpuviz.catalog import find
    from gpuviz.catalog.evidence import resolve

    entry = find(lesson)
    if entry.evidence is None:
        raise GpuvizError(f"lesson {entry.name} has no evidence frame to show")
    return resolve(entry.evidence, trace, launches=(trace,))


def grid_png(trace: Trace) -> bytes:
    """A trace's grid as PNG bytes, as a notebook shows a trace (no Qt needed)."""
    return picture(trace, size=(800, 450))


def trace_html(trace: Trace) -> str:
    """A trace as a notebook shows it: its summary, and its grid below."""
    return display.summary_html(trace, grid_png(trace))


def trace_widget(trace: Trace) -> dict | None:
    """A trace as a notebook shows it where anywidget is installed: the replay widget (None elsewhere, and
    the summary and grid show)."""
    try:
        return replay(trace)._repr_mimebundle_()
    except GpuvizError:
        return None


# ---- the %%gpuviz cell magic ------------------------------------------------------------------------
def magic_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="%%gpuviz", description="Run the cell with its kernel launches traced.")
    parser.add_argument("--backend", choices=("sim", "gpu", "auto"), default="sim", help="(default: sim)")
    parser.add_argument("--view", default="grid", help="the picture under each launch (default: grid)")
    parser.add_argument("--at", help="the frame shown: an index or a fraction like 0.5 (default: the last)")
    parser.add_argument("--animate", action="store_true", help="show each launch as a clip (GIF)")
    parser.add_argument("--level", choices=LEVELS, default="auto")
    parser.add_argument("--sms", type=int, help="simulator: number of virtual SMs")
    parser.add_argument("--quiet", action="store_true", help="no picture, only the launch lines")
    return parser


def trace_cell(code: str, namespace: dict, options: RunOptions, on_trace=None) -> list[Trace]:
    """Run notebook cell code in `namespace` with its launches traced; each trace goes to `on_trace`."""
    from gpuviz.instrument.source import register_text
    from gpuviz.program.launcher import activated
    from gpuviz.program.script import shims_for
    from gpuviz.run.session import Session

    session = Session(options, keep_traces=True, notify=_print_lines,
                      on_trace=(lambda _record, trace: on_trace(trace)) if on_trace else None)  # fmt: skip
    compiled = compile(code, register_text(code, "cell"), "exec")
    with activated(session), shims_for(session.backend.name, lambda: session.timeline):
        exec(compiled, namespace)
    session.finish()
    return session.traces


def _print_lines(event) -> None:
    from gpuviz.core.events import LogLine

    if isinstance(event, LogLine):
        print(event.text)


def gpuviz_magic(line: str, cell: str, namespace: dict):
    """%%gpuviz [--view V] [--at A] [--animate] [--backend sim|gpu|auto] [--level L] [--sms N] [--quiet]:
    the cell's launches are traced, a picture shown under each, and the traces kept in `gpuviz_traces`."""
    try:
        args = magic_parser().parse_args(shlex.split(line))
    except ValueError as exc:  # shlex: an unbalanced quote
        print(f"error: %%gpuviz {line.strip()}: {exc}; quote each value whole, e.g. --view 'grid'")
        return None
    except SystemExit:  # argparse printed what was wrong
        return None
    from IPython.display import display as show_inline

    def picture_under(trace: Trace) -> None:
        if not args.quiet:
            show_inline(show(trace, args.view, args.at, args.animate))

    try:
        options = RunOptions(backend=args.backend, level=args.level, sms=args.sms)
        namespace["gpuviz_traces"] = trace_cell(cell, namespace, options, picture_under)
    except GpuvizError as exc:
        print(f"error: {exc}")
    return None


def load_ipython_extension(ipython) -> None:
    """`%load_ext gpuviz`: registers the %%gpuviz cell magic, and how a trace shows itself as a cell's value
    (the replay widget where anywidget is installed; its summary and grid as HTML, its grid as PNG)."""
    ipython.display_formatter.mimebundle_formatter.for_type(Trace, trace_widget)
    formatters = ipython.display_formatter.formatters
    formatters["text/html"].for_type(Trace, trace_html)
    formatters["image/png"].for_type(Trace, grid_png)
    ipython.register_magic_function(
        lambda line, cell: gpuviz_magic(line, cell, ipython.user_ns), magic_kind="cell", magic_name="gpuviz"
    )
