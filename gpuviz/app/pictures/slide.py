"""The Slide: one view of the table drawn as a picture, with a title, its words, its legend and a caption.

Every picture view is composed the same way: the view's drawing (`View.drawing()`, never its controls), its
title lines (`headline()`) and what its colours mean (`legend_items()`); the caption comes from the app
state, never from the view. picture.py writes a slide as PNG or SVG, clip.py as GIF or MP4.
"""

from __future__ import annotations

import re

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QRegion
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QVBoxLayout, QWidget

from gpuviz.app.pictures.legend_strip import LegendStrip
from gpuviz.app.pictures.picture import PictureOptions, qt_app
from gpuviz.app.views.table import BY_NAME, PICTURE_VIEWS, make_view
from gpuviz.app.widgets import plot_theme
from gpuviz.core.display import code_as_html
from gpuviz.core.errors import GpuvizError
from gpuviz.core.theme_colours import THEMES
from gpuviz.scene.state import AppState


class Slide(QWidget):
    """A view of the table drawn as a slide: a title (kernel, launch, view), the lesson's words (the
    scene's caption) and the view's own words over its drawing, the legend and a caption (the launch, the
    selection) under it: the one widget that pictures, clips and notebooks draw.

    Only the view's drawing (`View.drawing()`) is drawn, never its controls: the view lives in a window of
    its own beside the slide, sized so that its drawing fills the slide's stage exactly, and the drawing
    alone is painted over the stage."""

    def __init__(self, view: str, theme: str = "dark") -> None:
        """A slide on a state of its own (empty: show a Scene with `slide.state.apply`)."""
        super().__init__()
        if view not in PICTURE_VIEWS:
            raise GpuvizError(f"unknown view {view!r}; views: {', '.join(PICTURE_VIEWS)}")
        self.state = state = AppState()  # before the view, which follows the state from its first trace
        self.name, self.theme, self._text_size = view, theme, 0
        self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)  # laid out and drawn, never a window
        self.title = _label("slideTitle")
        self.words = _label("slideWords", Qt.TextFormat.RichText)  # a lesson's point: what to see in the picture
        self.headline = _label("slideHeadline", Qt.TextFormat.RichText)
        self.stage = QWidget()  # the drawing's place: nothing of its own is drawn there
        self.legend = LegendStrip()
        self.caption = _label("slideCaption")
        self.frame_label = _label("slideCaption")  # a line of its own: the drawing keeps its size frame to frame
        self.frame_label.setWordWrap(False)
        layout = QVBoxLayout(self)
        for part in (self.title, self.words, self.headline, self.stage, self.legend, self.caption, self.frame_label):
            layout.addWidget(part, 1 if part is self.stage else 0)
        self.view = make_view(view, state)
        self.view.setParent(self, Qt.WindowType.Window)  # a window of its own: the slide never draws it whole
        self.view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        for area in [self.view, *self.view.findChildren(QAbstractScrollArea)]:  # a picture has nothing to scroll
            if isinstance(area, QAbstractScrollArea):
                area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
                area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._style(PictureOptions().size)
        for signal in (state.trace_changed, state.frame_changed, state.selection_changed, state.coloring_changed,
                       state.order_changed, state.frames_changed, state.caption_changed):  # fmt: skip
            signal.connect(lambda *_: self.refresh())
        self.refresh()

    def _style(self, size: tuple[int, int]) -> None:
        """The theme's colours, with text that grows with the slide: a slide shown on a projector is read
        from the back of the room whatever its pixels."""
        text = text_pixels(size)
        if text == self._text_size:
            return
        self._text_size = text
        theme = THEMES[self.theme]
        self.setStyleSheet(
            f"QWidget {{ background: {theme.picture}; color: {theme.text}; font-size: {text}px; }}"
            f"QLabel#slideTitle {{ font-size: {round(text * 1.4)}px; font-weight: bold; }}"
            f"QLabel#slideWords {{ font-weight: bold; }}"
            f"QLabel#slideCaption {{ color: {theme.muted}; }}"
        )
        self.layout().setContentsMargins(text, text // 2, text, text // 2)
        self.layout().setSpacing(text // 3)
        self.frame_label.ensurePolished()  # its font from the style sheet
        self.frame_label.setFixedHeight(QFontMetrics(self.frame_label.font()).lineSpacing() + 4)
        axis_font = QFont(self.font())
        axis_font.setPixelSize(max(10, round(text * 0.8)))
        for graphics in self.view.findChildren(pg.GraphicsView):
            plot_theme.restyle(graphics, self.theme)  # background, axes and words over the plot (table colours)
            for item in graphics.scene().items():
                if isinstance(item, pg.AxisItem):
                    item.setStyle(tickFont=axis_font)
                    item.label.setFont(axis_font)

    def refresh(self) -> None:
        trace = self.state.trace
        self.title.setText(title_text(self.state, BY_NAME[self.name].title) if trace is not None else "No trace")
        self.words.setText(code_as_html(self.state.caption) if trace is not None else "")
        self.headline.setText(self.view.headline() if trace is not None else "")
        for words in (self.words, self.headline):
            words.setVisible(bool(words.text()))
        self.caption.setText(caption_text(self.state) if trace is not None else "")
        self.frame_label.setText(frame_text(self.state))
        said = self.view.legend_in_drawing() if trace is not None else []
        self.legend.set_items([entry for entry in self.view.legend_items() if entry not in said] if trace else [])

    def drawing_rect(self) -> QRect:
        """Where the view's drawing lies in the slide (logical pixels)."""
        return self.stage.geometry()

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
        """The slide's own parts, then the view's drawing alone over the stage."""
        painter = QPainter(device)
        if not painter.isActive():
            raise GpuvizError("could not draw the picture")
        try:
            self.render(painter, QPoint(0, 0))
            stage = self.drawing_rect()
            area = QRegion(0, 0, stage.width(), stage.height())  # QWidget's render: a plot's own draws its scene
            QWidget.render(self.view.drawing(), painter, stage.topLeft(), area)
        finally:
            painter.end()

    def _lay_out(self, size: tuple[int, int]) -> None:
        self._style(size)
        self.refresh()  # the view's words as they are now: some follow signals the slide does not hear
        if self.size() != QSize(*size) or not self.isVisible():
            self.resize(*size)
            self.show()
            qt_app().processEvents()
            self.resize(*size)  # views that autorange on show settle at the final size
        qt_app().processEvents()
        self._fit_drawing()

    def _fit_drawing(self) -> None:
        """Size the view so that its drawing is exactly the stage (the controls around it take their room
        outside the picture). A drawing may get only part of what the view grows by (a splitter shares it
        out), so each round grows the view by what is missing over the share the last round gave."""
        drawing, share = self.view.drawing(), (1.0, 1.0)
        if not self.view.isVisible():
            self.view.resize(self.stage.size())
            self.view.show()
            qt_app().processEvents()
        for _ in range(6):
            missing, before = self.stage.size() - drawing.size(), drawing.size()
            if missing.isNull():
                return
            step = QSize(round(missing.width() / share[0]), round(missing.height() / share[1]))
            self.view.resize(self.view.size() + step)
            qt_app().processEvents()
            grown = drawing.size() - before
            share = tuple(
                _share(got, asked, old)
                for got, asked, old in (
                    (grown.width(), step.width(), share[0]),
                    (grown.height(), step.height(), share[1]),
                )
            )

    def closeEvent(self, event) -> None:  # noqa: N802
        self.view.close()
        super().closeEvent(event)


def _share(got: int, asked: int, last: float) -> float:
    """The part of a step in the view's size that reached its drawing (kept from the last step if none)."""
    return min(1.0, max(0.1, got / asked)) if asked and got else last


def text_pixels(size: tuple[int, int]) -> int:
    """The slide's text size for its height: 12 px on a 640x360 clip, 18 on 1280x720, 27 on 1920x1080."""
    return max(12, min(40, round(size[1] / 40)))


def _label(name: str, text_format=Qt.TextFormat.AutoText) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(text_format)
    return label


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
    return f"frame {state.frame + 1:,} of {state.plan.count:,} ({state.order} order)"
