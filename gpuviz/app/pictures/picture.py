"""Pictures of slides (slide.py): their size, scale and theme, Qt started offscreen where there is no
display, and a slide drawn into PNG or SVG bytes and written whole or not at all."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, qInstallMessageHandler
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from gpuviz.app.pictures.export import PICTURE_SIZE, problem_finder
from gpuviz.core.errors import GpuvizError
from gpuviz.core.files import replaced
from gpuviz.core.numbers import number
from gpuviz.core.theme_colours import THEMES

FORMATS = (".png", ".svg")


@dataclass(frozen=True)
class PictureOptions:
    size: tuple[int, int] = PICTURE_SIZE  # the slide's width and height in logical pixels
    scale: float = 1.0  # device pixels per logical pixel: the file is size x scale pixels
    theme: str = "dark"

    def __post_init__(self) -> None:
        if self.theme not in THEMES:
            raise GpuvizError(f"unknown theme {self.theme!r}; themes: {', '.join(THEMES)}")
        if not 0.25 <= self.scale <= 8:
            raise GpuvizError(f"scale {number(self.scale)}: use 0.25 to 8 (2 gives a sharp picture for a 4K screen)")

    @property
    def pixels(self) -> tuple[int, int]:
        return round(self.size[0] * self.scale), round(self.size[1] * self.scale)


class Drawable(Protocol):
    """What can be written as a picture: a Slide (slide.py), which draws itself at a size."""

    def image(self, options: PictureOptions) -> QImage: ...

    def svg(self, options: PictureOptions) -> bytes: ...


def qt_app() -> QApplication:
    """The running QApplication, or a new one (offscreen where there is no display)."""
    if QApplication.instance() is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        qInstallMessageHandler(_quiet_offscreen)
        pg.setConfigOptions(useOpenGL=False, antialias=True)
        return QApplication([])
    return QApplication.instance()


def _quiet_offscreen(kind, context, message: str) -> None:
    """Keep the offscreen platform's harmless notes out of notebooks and the command line."""
    if "propagateSizeHints" not in message:
        print(message, file=sys.stderr)


def image_array(image: QImage) -> np.ndarray:
    """An RGB uint8 array (height, width, 3) of a picture: for clips and tests."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    data = np.frombuffer(image.constBits(), np.uint8, count=stride * height).reshape(height, stride)
    return data[:, : width * 3].reshape(height, width, 3).copy()


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data)


def picture_bytes(slide: Drawable, suffix: str, options: PictureOptions) -> bytes:
    if suffix == ".svg":
        return slide.svg(options)
    if suffix == ".png":
        return png_bytes(slide.image(options))
    raise GpuvizError(f"cannot draw a {suffix or 'nameless'} picture: use a .png or .svg file name")


def write_bytes(data: bytes, path: str | Path) -> Path:
    """Write a picture whole or not at all, and read it back before it counts (core/files.py)."""
    path = Path(path)
    with replaced(path, "picture", problem_finder(path)) as temporary:
        _write_data(data, temporary)
    return path


def _write_data(data: bytes, temporary: Path) -> None:
    with open(temporary, "xb") as stream:
        stream.write(data)


def write_picture(slide: Drawable, path: str | Path, options: PictureOptions) -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise GpuvizError(f"cannot write a picture to {path.name}: use a .png or .svg file name")
    return write_bytes(picture_bytes(slide, path.suffix.lower(), options), path)
