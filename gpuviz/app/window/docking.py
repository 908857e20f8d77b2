"""Panels around the views: docks by area (scrolling when small), and rows and columns of widgets."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QMainWindow, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.app.window import screen_fit

AREAS = {
    "left": Qt.DockWidgetArea.LeftDockWidgetArea,
    "right": Qt.DockWidgetArea.RightDockWidgetArea,
    "bottom": Qt.DockWidgetArea.BottomDockWidgetArea,
}


def dock_area(window: QMainWindow, area: str, panels: list[tuple[str, QWidget]]) -> None:
    """The first two panels of the left and right areas stand one above the other; the rest are tabs."""
    docks = []
    for title, widget in panels:
        dock = QDockWidget(title, window)
        dock.setObjectName(title)
        dock.setWidget(screen_fit.scrolled(widget))
        window.addDockWidget(AREAS[area], dock)
        docks.append(dock)
    for dock in docks[2:]:
        window.tabifyDockWidget(docks[1], dock)
    if len(docks) > 1:
        docks[1].raise_()
    for dock, (_, widget) in zip(docks, panels):
        if isinstance(widget, View):  # a view may wait to draw while its dock is behind another
            dock.visibilityChanged.connect(widget.set_on_screen)
            widget.set_on_screen(dock not in docks[2:])  # tabs behind the raised one start hidden


def row(*widgets: QWidget) -> QWidget:
    holder = QWidget()
    layout = QHBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    return holder


def column(*widgets: QWidget) -> QWidget:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    for widget in widgets:
        layout.addWidget(widget)
    return holder
