"""How the window looks: a dark and a light theme and one font scale for every widget, plot axis and
text in the plots (Ctrl+= / Ctrl+- / Ctrl+0), remembered in the settings."""

from __future__ import annotations

from dataclasses import asdict
from weakref import WeakKeyDictionary

import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QWidget

from gpuviz.app.widgets import plot_theme
from gpuviz.core.theme_colours import BADGES, THEMES, ThemeColours, css

BASE_PIXELS = 13  # the text size at scale 1
SCALES = (0.75, 2.5)  # the smallest and largest scale
STEP = 1.15  # one Ctrl+= or Ctrl+-
PRESENTATION_SCALE = 1.6  # a projector at the back of a classroom
_scale = 1.0  # the scale in force: cell labels made later read it
_theme = "dark"  # the theme in force: words coloured later (the lesson text's links) read it

STYLE = """
QWidget {{ font-size: {body}px; }}
QMainWindow, QDockWidget, QWidget {{ background: {background}; color: {text}; }}
QLabel#gridCaption {{ font-size: {title}px; font-weight: bold; padding: 6px; }}
QLabel#evidence {{ font-size: {title}px; font-weight: bold; padding: 6px; background: {badge_evidence_bg};
                   color: {badge_evidence}; }}
QLabel#status {{ font-size: {status}px; padding: 4px; }}
QLabel#status[error="true"], QLabel#launchMessage, QLabel#gridCaption[error="true"] {{ color: {bad};
    font-weight: bold; }}
QPushButton {{ background: {button}; border: 1px solid {border}; padding: 4px 10px; }}
QPushButton:disabled {{ color: {muted}; }}
QPushButton#run {{ background: {badge_run_bg}; color: {badge_run}; font-weight: bold; font-size: {title}px; }}
QPushButton#run[busy="true"] {{ background: {badge_busy_bg}; color: {badge_busy}; }}
QPushButton#stop[busy="true"] {{ background: {badge_stop_bg}; color: {badge_stop}; font-weight: bold; }}
QPushButton#commit, QPushButton#showAnswer, QPushButton#checkFix {{ background: {badge_primary_bg};
                                                                   color: {badge_primary}; font-weight: bold; }}
QPushButton#commit:disabled, QPushButton#showAnswer:disabled, QPushButton#checkFix:disabled {{
    background: {button}; color: {muted}; }}
QRadioButton::indicator {{ width: {body}px; height: {body}px; border: 2px solid {text}; border-radius: {round}px;
                          background: {field}; }}
QRadioButton::indicator:checked {{ background: {link}; border-color: {link}; }}
QRadioButton:checked {{ font-weight: bold; }}
QListWidget, QComboBox, QSpinBox, QTextBrowser, QPlainTextEdit {{ background: {field}; border: 1px solid {border}; }}
QPlainTextEdit {{ font-family: "DejaVu Sans Mono", monospace; }}
QToolTip {{ background: {field}; color: {text}; border: 1px solid {border}; }}
QWidget#stageBar, QWidget#stageBar QWidget {{ font-size: {stage}px; }}
QLabel#captionOverlay {{ background: {overlay}; }}
"""


def scale() -> float:
    return _scale


def colours() -> ThemeColours:
    """The colours of the theme in force."""
    return THEMES[_theme]


def pixels(base: float) -> int:
    """A text size of `base` pixels at scale 1, at the scale in force."""
    return max(6, round(base * _scale))


def clamp(value: float) -> float:
    return min(SCALES[1], max(SCALES[0], round(value, 3)))


def style_sheet(theme: str, scale_: float) -> str:
    sizes = {
        "body": round(BASE_PIXELS * scale_),
        "title": round(16 * scale_),
        "status": round(14 * scale_),
        "round": round(BASE_PIXELS * scale_) // 2 + 2,  # a round radio button: half its size and border
        # the stage's row of controls is for the teacher: it stays at the projector's size whatever the
        # text scale, so one row holds it at 1280 pixels (the picture, caption and lesson text grow)
        "stage": round(BASE_PIXELS * min(scale_, PRESENTATION_SCALE)),
    }
    return STYLE.format(**_style_colours(theme), **sizes)


def _style_colours(theme: str) -> dict[str, str]:
    """The theme's colours and the badges' (the same in both themes) by the names the style sheet uses."""
    colours = THEMES[theme]
    named = asdict(colours)
    named["overlay"] = css(colours.overlay)
    for name, badge in BADGES.items():  # badge_run, badge_run_bg, ...: apart from the theme's own names
        key = "badge_" + name.replace(" ", "_")
        named[key], named[key + "_bg"] = badge.text, badge.background
    return named


def apply(window: QWidget, theme: str, scale_: float) -> None:
    """Theme and font scale on the window, the application font (new plot text follows it) and the
    plots already drawn: their axes, their text items and their backgrounds."""
    global _scale, _theme
    before, _scale, _theme = _scale, clamp(scale_), theme
    font = QFont(QApplication.font())
    font.setPixelSize(pixels(BASE_PIXELS))
    QApplication.setFont(font)
    window.setStyleSheet(style_sheet(theme, _scale))
    for graphics in window.findChildren(pg.GraphicsView):
        _restyle_plot(graphics, theme, font, before)


def _restyle_plot(graphics: pg.GraphicsView, theme: str, font: QFont, before: float) -> None:
    plot_theme.restyle(graphics, theme)
    graphics.scene().setFont(font)
    for item in graphics.scene().items():
        if isinstance(item, pg.AxisItem):
            item.setStyle(tickFont=font)
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
