"""How the window looks: a dark and a light theme and one font scale for every widget, plot axis and
text in the plots (Ctrl+= / Ctrl+- / Ctrl+0), remembered in the settings."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QWidget

from gpuviz.app.pictures.picture import THEMES

BASE_PIXELS = 13  # the text size at scale 1
SCALES = (0.75, 2.5)  # the smallest and largest scale
STEP = 1.15  # one Ctrl+= or Ctrl+-
PRESENTATION_SCALE = 1.6  # a projector at the back of a classroom
_scale = 1.0  # the scale in force: cell labels made later read it

STYLE = """
QWidget {{ font-size: {body}px; }}
QMainWindow, QDockWidget, QWidget {{ background: {background}; color: {text}; }}
QLabel#gridCaption {{ font-size: {title}px; font-weight: bold; padding: 6px; }}
QLabel#evidence {{ font-size: {title}px; font-weight: bold; padding: 6px; background: #f9a825; color: #16161d; }}
QLabel#status {{ font-size: {status}px; padding: 4px; }}
QPushButton {{ background: {button}; border: 1px solid {border}; padding: 4px 10px; }}
QPushButton:disabled {{ color: {muted}; }}
QPushButton#run {{ background: #2e7d32; color: white; font-weight: bold; font-size: {title}px; }}
QPushButton#run[busy="true"] {{ background: #f9a825; color: black; }}
QPushButton#stop[busy="true"] {{ background: #c62828; color: white; font-weight: bold; }}
QPushButton#commit, QPushButton#showAnswer, QPushButton#checkFix {{ background: #1565c0; color: white;
                                                                   font-weight: bold; }}
QPushButton#commit:disabled, QPushButton#showAnswer:disabled, QPushButton#checkFix:disabled {{
    background: {button}; color: {muted}; }}
QRadioButton::indicator {{ width: {body}px; height: {body}px; border: 2px solid {text}; border-radius: {round}px;
                          background: {field}; }}
QRadioButton::indicator:checked {{ background: #4aa3ff; border-color: #4aa3ff; }}
QRadioButton:checked {{ font-weight: bold; }}
QListWidget, QComboBox, QSpinBox, QTextBrowser, QPlainTextEdit {{ background: {field}; border: 1px solid {border}; }}
QPlainTextEdit {{ font-family: "DejaVu Sans Mono", monospace; }}
QToolTip {{ background: {field}; color: {text}; border: 1px solid {border}; }}
QWidget#stageBar, QWidget#stageBar QWidget {{ font-size: {stage}px; }}
QLabel#captionOverlay {{ background: {overlay}; }}
"""
PALETTES = {
    "dark": {"background": "#1b1c24", "text": "#e6e6ee", "muted": "#8a8a9a", "button": "#2c2e3b",
             "border": "#444455", "field": "#242530", "overlay": "rgba(27, 28, 36, 215)"},
    "light": {"background": "#f3f3f6", "text": "#16161d", "muted": "#77778a", "button": "#e1e2ea",
              "border": "#a9a9b8", "field": "#ffffff", "overlay": "rgba(243, 243, 246, 225)"},
}  # fmt: skip


def scale() -> float:
    return _scale


def pixels(base: float) -> int:
    """A text size of `base` pixels at scale 1, at the scale in force."""
    return max(6, round(base * _scale))


def clamp(value: float) -> float:
    return min(SCALES[1], max(SCALES[0], round(value, 3)))


def style_sheet(theme: str, scale_: float) -> str:
    sizes = {"body": round(BASE_PIXELS * scale_), "title": round(16 * scale_), "status": round(14 * scale_),
             "round": round(BASE_PIXELS * scale_) // 2 + 2,  # a round radio button: half its size and border
             # the stage's row of controls is for the teacher: it stays at the projector's size whatever the
             # text scale, so one row holds it at 1280 pixels (the picture, caption and lesson text grow)
             "stage": round(BASE_PIXELS * min(scale_, PRESENTATION_SCALE))}
    return STYLE.format(**PALETTES[theme], **sizes)


def apply(window: QWidget, theme: str, scale_: float) -> None:
    """Theme and font scale on the window, the application font (new plot text follows it) and the
    plots already drawn: their axes, their text items and their backgrounds."""
    global _scale
    before, _scale = _scale, clamp(scale_)
    font = QFont(QApplication.font())
    font.setPixelSize(pixels(BASE_PIXELS))
    QApplication.setFont(font)
    window.setStyleSheet(style_sheet(theme, _scale))
    for graphics in window.findChildren(pg.GraphicsView):
        _restyle_plot(graphics, theme, font, before)


def _restyle_plot(graphics: pg.GraphicsView, theme: str, font: QFont, before: float) -> None:
    colours = THEMES[theme]
    graphics.setBackground(colours.plot)
    graphics.scene().setFont(font)
    for item in graphics.scene().items():
        if isinstance(item, pg.AxisItem):
            item.setStyle(tickFont=font)
            item.setTextPen(colours.text)
            item.setPen(colours.muted)
        elif isinstance(item, pg.TextItem):
            _rescale_text(item, before)


_base_pixels: WeakKeyDictionary[pg.TextItem, float] = WeakKeyDictionary()  # each text item's size at scale 1


def _rescale_text(item: pg.TextItem, before: float) -> None:
    """A text item at the scale in force. Text items are made at the scale then in force (from the
    application font, or from `pixels`), so their size at scale 1 is their size over the previous scale."""
    font = QFont(item.textItem.font())
    if item not in _base_pixels:
        made = font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * 4 / 3
        _base_pixels[item] = made / before
    font.setPixelSize(pixels(_base_pixels[item]))
    item.setFont(font)
