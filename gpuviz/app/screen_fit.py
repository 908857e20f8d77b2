"""The window fits the screen: panels scroll vertically and wrap instead of growing the window, and
the window is never made larger than the screen's available area (from 1280x720 up)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QLabel, QMainWindow, QScrollArea, QSizePolicy, QWidget

SMALLEST = QSize(1280, 720)  # the smallest screen we promise to fit (a classroom projector)
PREFERRED = QSize(1500, 900)


def scrolled(widget: QWidget) -> QScrollArea:
    """A panel that scrolls up and down when its dock is short and never sideways: its minimum size
    stays small, so a long record or lesson cannot grow the window."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


def elastic(label: QLabel) -> QLabel:
    """A one-line label (status, caption) that may be cut rather than widen the window."""
    label.setSizePolicy(QSizePolicy.Policy.Ignored, label.sizePolicy().verticalPolicy())
    label.setMinimumWidth(0)
    return label


def available() -> QSize | None:
    """The screen's free area (without task bars); None off screen (pictures and tests draw any size)."""
    screen = QGuiApplication.primaryScreen()
    if screen is None or QGuiApplication.platformName() == "offscreen":
        return None
    return screen.availableGeometry().size()


def fit(window: QMainWindow, bound: QSize | None = None) -> None:
    """Cap the window at `bound` (the screen's free area) and shrink it to fit when it is larger."""
    bound = bound or available()
    if bound is None:
        return
    window.setMaximumSize(bound)
    size = window.size()
    if size.width() > bound.width() or size.height() > bound.height():
        window.resize(size.boundedTo(bound))


def first_size(bound: QSize | None = None) -> QSize:
    """The window's size on a first start: the preferred size, or the whole free area when smaller."""
    bound = bound or available()
    return PREFERRED.boundedTo(bound) if bound is not None else PREFERRED
