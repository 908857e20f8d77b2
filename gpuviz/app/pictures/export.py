"""What exports share: the default sizes of a slide and a clip, reading `--size`, and reading a written
picture back before it counts (Qt's save() says yes even on a full disk). Slides draw themselves
(picture.py): a view's drawing with its title, legend and caption, never the widget whole."""

from __future__ import annotations

from pathlib import Path

from gpuviz.core.errors import GpuvizError

PICTURE_SIZE = (1600, 900)  # a slide's logical pixels unless asked otherwise
CLIP_SIZE = (640, 360)  # a clip's: a GIF of hundreds of frames stays small, and the picture fills it


def problem_finder(path: Path):
    """How to read a written picture back: what is wrong with it, or None."""
    return _png_problem if path.suffix.lower() == ".png" else _svg_problem


def _png_problem(written: Path) -> str | None:
    from PySide6.QtGui import QImage

    image = QImage(str(written))
    return "the picture written cannot be read back (is the disk full?)" if image.isNull() else None


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
