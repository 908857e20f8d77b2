"""Pictures for slides: one view of the table composed with a title, a caption and its legend into one
widget (the Slide), drawn at a chosen size, scale and theme into PNG or SVG bytes.

Every picture view is composed the same way: a view that colours things says what its colours mean
with `legend_items()` (a list of (rgb, label)); the caption comes from the app state, never from the view.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, QSize, Qt, qInstallMessageHandler
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from gpuviz.app.pictures.export import problem_finder
from gpuviz.app.pictures.legend_strip import LegendStrip
from gpuviz.app.views.table import BY_NAME, PICTURE_VIEWS, make_view
from gpuviz.app.widgets import plot_theme
from gpuviz.core.errors import GpuvizError
from gpuviz.core.files import replaced
from gpuviz.core.theme_colours import THEMES
from gpuviz.scene.state import AppState

FORMATS = (".png", ".svg")


@dataclass(frozen=True)
class PictureOptions:
    size: tuple[int, int] = (1600, 900)  # the slide's width and height in logical pixels
    scale: float = 1.0  # device pixels per logical pixel: the file is size x scale pixels
    theme: str = "dark"

    def __post_init__(self) -> None:
        if self.theme not in THEMES:
            raise GpuvizError(f"unknown theme {self.theme!r}; themes: {', '.join(THEMES)}")
        if not 0.25 <= self.scale <= 8:
            raise GpuvizError(f"scale {self.scale:g}: use 0.25 to 8 (2 gives a sharp picture for a 4K screen)")

    @property
    def pixels(self) -> tuple[int, int]:
        return round(self.size[0] * self.scale), round(self.size[1] * self.scale)


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


class Slide(QWidget):
    """A view of the table with a title (kernel, launch, view), the legend and a caption (frame, colours,
    selection): the one widget that pictures, clips and notebooks draw."""

    def __init__(self, view: str, theme: str = "dark") -> None:
        """A slide on a state of its own (empty: show a Scene with `slide.state.apply`)."""
        super().__init__()
        if view not in PICTURE_VIEWS:
            raise GpuvizError(f"unknown view {view!r}; views: {', '.join(PICTURE_VIEWS)}")
        self.state = state = AppState()  # before the view, which follows the state from its first trace
        self.name = view
        self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)  # laid out and drawn, never a window
        self.title = QLabel()
        self.title.setObjectName("slideTitle")
        self.view = make_view(view, state)
        self.legend = LegendStrip()
        self.caption = QLabel()
        self.caption.setObjectName("slideCaption")
        self.caption.setWordWrap(True)
        self.frame_label = QLabel()  # one line of its own, so the view keeps its size from frame to frame
        self.frame_label.setObjectName("slideCaption")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.addWidget(self.title)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.caption)
        layout.addWidget(self.frame_label)
        self.apply_theme(theme)
        for signal in (state.trace_changed, state.frame_changed, state.selection_changed, state.coloring_changed,
                       state.order_changed, state.frames_changed):  # fmt: skip
            signal.connect(lambda *_: self.refresh())
        self.refresh()

    def apply_theme(self, name: str) -> None:
        theme = THEMES[name]
        self.setStyleSheet(
            f"QWidget {{ background: {theme.picture}; color: {theme.text}; font-size: 13px; }}"
            f"QLabel#slideTitle {{ font-size: 20px; font-weight: bold; }}"
            f"QLabel#slideCaption {{ color: {theme.muted}; font-size: 14px; }}"
        )
        self.frame_label.ensurePolished()  # its font from the style sheet
        self.frame_label.setFixedHeight(QFontMetrics(self.frame_label.font()).lineSpacing() + 4)
        for graphics in self.view.findChildren(pg.GraphicsView):
            plot_theme.restyle(graphics, name)

    def refresh(self) -> None:
        trace = self.state.trace
        self.title.setText(title_text(self.state, BY_NAME[self.name].title) if trace is not None else "No trace")
        self.caption.setText(caption_text(self.state) if trace is not None else "")
        self.frame_label.setText(frame_text(self.state))
        self.legend.set_items(self.view.legend_items() if trace is not None else [])

    def image(self, options: PictureOptions) -> QImage:
        """The slide drawn at options.size, in options.pixels device pixels."""
        self._lay_out(options.size)
        width, height = options.pixels
        image = QImage(width, height, QImage.Format.Format_RGB32)
        image.setDevicePixelRatio(options.scale)
        image.fill(QColor(THEMES[options.theme].picture))
        self._paint(image)
        return image

    def svg(self, options: PictureOptions) -> bytes:
        from PySide6.QtSvg import QSvgGenerator

        self._lay_out(options.size)
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(QSize(*options.pixels))
        generator.setViewBox(QRect(0, 0, *options.size))
        generator.setTitle(self.title.text())
        self._paint(generator)
        width, height = options.pixels  # Qt writes millimetres; slides and browsers want pixels
        svg = re.sub(rb'(<svg[^>]*?)width="[^"]*" height="[^"]*"', rb'\1width="%d" height="%d"' % (width, height),
                     bytes(buffer.data()), count=1)  # fmt: skip
        return svg

    def _paint(self, device) -> None:
        painter = QPainter(device)
        if not painter.isActive():
            raise GpuvizError("could not draw the picture")
        try:
            self.render(painter, QPoint(0, 0))
        finally:
            painter.end()

    def _lay_out(self, size: tuple[int, int]) -> None:
        if self.size() != QSize(*size) or not self.isVisible():
            self.resize(*size)
            self.show()
            qt_app().processEvents()
            self.resize(*size)  # views that autorange on show settle at the final size
        qt_app().processEvents()


def title_text(state: AppState, what: str) -> str:
    trace = state.trace
    launch = f"launch {trace.meta.get('launch', 0)}"
    return f"{trace.kernel}  ·  {launch}  ·  {what}"


def caption_text(state: AppState) -> str:
    """What the picture shows, in words: the launch and the selection (the legend says the colours)."""
    trace = state.trace
    grid, block = "x".join(map(str, trace.grid)), "x".join(map(str, trace.block))
    parts = [f"grid {grid}, block {block}: {trace.n_threads:,} threads on {trace.meta['backend']} "
             f"({trace.meta['device']})"]  # fmt: skip
    if state.selected >= 0:
        block, thread = (tuple(int(v) for v in trace.threads[k][state.selected]) for k in ("block_idx", "thread_idx"))
        parts.append(f"selected: thread {state.selected:,} = block {block} thread {thread}")
    return "  ·  ".join(parts)


def frame_text(state: AppState) -> str:
    """Which frame of the animation is shown; nothing at the last frame, which shows the whole launch."""
    if state.frame >= state.plan.count - 1:
        return ""
    return f"frame {state.frame + 1} of {state.plan.count} ({state.order} order)"


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


def picture_bytes(slide: Slide, suffix: str, options: PictureOptions) -> bytes:
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


def write_picture(slide: Slide, path: str | Path, options: PictureOptions) -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise GpuvizError(f"cannot write a picture to {path.name}: use a .png or .svg file name")
    return write_bytes(picture_bytes(slide, path.suffix.lower(), options), path)
