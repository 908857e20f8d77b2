"""The window fits the screen: panels scroll vertically and wrap instead of growing the window, and
the window is never made larger than the screen's available area (from 1280x720 up)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QFrame, QLabel, QMainWindow, QScrollArea, QSizePolicy, QWidget

SMALLEST = QSize(1280, 720)  # the smallest screen we promise to fit (a classroom projector)
PREFERRED = QSize(1500, 900)
SIDE_SHARES = {Qt.DockWidgetArea.LeftDockWidgetArea: 0.22, Qt.DockWidgetArea.RightDockWidgetArea: 0.3}
STACKED_SHARES = {"Launch": 0.4, "Lesson": 0.6}  # the right side's two docks: the lesson is read from afar


def scrolled(widget: QWidget) -> QScrollArea:
    """A panel that scrolls when its dock is small: its minimum size stays small, so a long record or
    lesson cannot grow the window. Text wraps (labels have word wrap), so only controls that cannot
    be narrower (a row of spin boxes at a big font scale) ever scroll sideways, rather than being cut."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
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


def share_width(window: QMainWindow) -> None:
    """A first start: the side panels get a fair share of the width (panels that may shrink would
    otherwise be squeezed to their small minimum by the views in the centre)."""
    for area, share in SIDE_SHARES.items():
        docks = [dock for dock in window.findChildren(QDockWidget) if window.dockWidgetArea(dock) == area]
        if docks:
            window.resizeDocks(docks, [int(window.width() * share)] * len(docks), Qt.Orientation.Horizontal)
    stacked = [window.findChild(QDockWidget, name) for name in STACKED_SHARES]
    if all(stacked):
        heights = [int(window.height() * share) for share in STACKED_SHARES.values()]
        window.resizeDocks(stacked, heights, Qt.Orientation.Vertical)
