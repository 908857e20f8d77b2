"""Export any view to PNG or SVG (Qt's QSvgGenerator: pyqtgraph's SVG exporter fails with PySide6 >= 6.11),
and draw a view of a trace file headlessly for `gpuviz render`."""

from __future__ import annotations

from pathlib import Path

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


def problem_finder(path: Path):
    """How to read a written picture back: what is wrong with it, or None."""
    return _png_problem if path.suffix.lower() == ".png" else _svg_problem


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
