"""Export any view to PNG or SVG (Qt's QSvgGenerator: pyqtgraph's SVG exporter fails with PySide6 >= 6.11),
and draw a view of a trace file headlessly for `gpuviz render`."""

from __future__ import annotations

from pathlib import Path

from gpuviz.core.analysis.report import analyse, is_analysed
from gpuviz.core.errors import GpuvizError

FORMATS = (".png", ".svg")


def export_widget(widget, path: str | Path) -> Path:
    from PySide6.QtCore import QPoint, QRect, QSize
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise GpuvizError(f"cannot export to {path.name}: use a .png or .svg file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GpuvizError(f"cannot write {path}: {exc.strerror or exc}") from None
    if path.suffix.lower() == ".png":
        if not widget.grab().save(str(path)):
            raise GpuvizError(f"could not write {path}")
        return path
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(widget.width(), widget.height()))
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle(f"gpuviz {widget.__class__.__name__}")
    painter = QPainter(generator)
    if not painter.isActive():
        raise GpuvizError(f"could not write {path}")
    try:
        widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()
    return path


def parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise GpuvizError(f"--size {text!r}: give WIDTHxHEIGHT in pixels, e.g. 1600x900") from None
    if not (100 <= width <= 10000 and 100 <= height <= 10000):
        raise GpuvizError(f"--size {text!r}: width and height must be 100 to 10000 pixels")
    return width, height


def render_trace(trace_path: str | Path, view: str, out: str | Path, size: tuple[int, int] = (1600, 900)) -> Path:
    """Draw one view of a trace file into a PNG or SVG, without opening a window."""
    import os

    from gpuviz.app.views.table import PICTURE_VIEWS, make_view
    from gpuviz.core.trace import load

    if view not in PICTURE_VIEWS:
        raise GpuvizError(f"unknown view {view!r}; views: {', '.join(PICTURE_VIEWS)}")
    if Path(out).suffix.lower() not in FORMATS:
        raise GpuvizError(f"cannot render to {Path(out).name}: use a .png or .svg file name")
    trace = load(trace_path)
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
    app.processEvents()
    widget.resize(*size)
    app.processEvents()
    path = export_widget(widget, out)
    widget.close()
    return path

