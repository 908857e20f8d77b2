"""Export any view to PNG or SVG (Qt's QSvgGenerator: pyqtgraph's SVG exporter fails with PySide6 >= 6.11),
and draw a view of a trace file headlessly for `gpuviz render`."""

from __future__ import annotations

from pathlib import Path

from gpuviz.core.analysis.report import analyse, is_analysed
from gpuviz.core.errors import GpuvizError
from gpuviz.core.files import replaced

FORMATS = (".png", ".svg")


def export_widget(widget, path: str | Path) -> Path:
    """Write a picture of `widget`, whole or not at all: Qt's save() says yes even on a full disk, so the
    written file is read back before it replaces `path` (core/files.py)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise GpuvizError(f"cannot export to {path.name}: use a .png or .svg file name")
    write, check = (_write_png, _png_problem) if suffix == ".png" else (_write_svg, _svg_problem)
    with replaced(path, "picture", check) as temporary:
        write(widget, temporary)
    return path


def _write_png(widget, temporary: Path) -> None:
    widget.grab().save(str(temporary), "PNG")  # its answer is not trusted: _png_problem reads the file


def _png_problem(written: Path) -> str | None:
    from PySide6.QtGui import QImage

    image = QImage(str(written))
    return "the picture written cannot be read back (is the disk full?)" if image.isNull() else None


def _write_svg(widget, temporary: Path) -> None:
    from PySide6.QtCore import QPoint, QRect, QSize
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    generator = QSvgGenerator()
    generator.setFileName(str(temporary))
    generator.setSize(QSize(widget.width(), widget.height()))
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle(f"gpuviz {widget.__class__.__name__}")
    painter = QPainter(generator)
    if not painter.isActive():
        raise OSError("Qt could not start drawing into it")
    try:
        widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()


def _svg_problem(written: Path) -> str | None:
    with open(written, "rb") as stream:
        stream.seek(max(0, written.stat().st_size - 64))
        tail = stream.read()
    return None if tail.rstrip().endswith(b"</svg>") else "the SVG written is cut short (is the disk full?)"


def parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise GpuvizError(f"--size {text!r}: give WIDTHxHEIGHT in pixels, e.g. 1600x900") from None
    if not (100 <= width <= 10000 and 100 <= height <= 10000):
        raise GpuvizError(f"--size {text!r}: width and height must be 100 to 10000 pixels")
    return width, height


def render_trace(trace_path: str | Path, view: str, out: str | Path, size: tuple[int, int] = (1600, 900),
                 at: str | None = None, element: str | None = None, order: str | None = None,
                 memory_budget: int | None = None) -> Path:  # fmt: skip
    """Draw one view of a trace file into a PNG or SVG, without opening a window: at the end of the
    run, or at a frame of the replay (`at`, see core/cursor.py), with an element picked (`element`)."""
    import os

    import gpuviz
    from gpuviz.app.views.table import PICTURE_VIEWS, make_view

    if view not in PICTURE_VIEWS:
        raise GpuvizError(f"unknown view {view!r}; views: {', '.join(PICTURE_VIEWS)}")
    if Path(out).suffix.lower() not in FORMATS:
        raise GpuvizError(f"cannot render to {Path(out).name}: use a .png or .svg file name")
    trace = gpuviz.load(trace_path, memory_budget)
    if not is_analysed(trace):  # a trace from a gpuviz that did not store its analysis
        trace.analysis = analyse(trace)
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from gpuviz.app.state import AppState

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(useOpenGL=False, antialias=True)
    state = AppState()
    widget = make_view(view, state)
    widget.resize(*size)
    widget.show()
    state.set_trace(trace)  # a new trace shows its last frame: everything
    _show_moment(state, trace, at, element, order)
    app.processEvents()
    widget.resize(*size)
    app.processEvents()
    path = export_widget(widget, out)
    widget.close()
    return path



def _show_moment(state, trace, at: str | None, element: str | None, order: str | None) -> None:
    """Point the state where the picture asks: an order, a frame, an element."""
    from gpuviz.core.cursor import parse_at, parse_element
    from gpuviz.core.frames import ORDERS

    if order is not None:
        if order not in ORDERS:
            raise GpuvizError(f"--order {order!r}: use one of {', '.join(ORDERS)}")
        state.set_order(order)
    if element is not None:
        aid, index = parse_element(element, trace.meta.get("arrays", []))
        state.select_element((aid, index, None))
    if at is not None:
        times = state.replay.times if state.replay is not None and state.order == "replay" else None
        state.set_frame(parse_at(at, state.plan.count, times))
