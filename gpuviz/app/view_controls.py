"""The window's look, as actions: font scale (Ctrl+= / Ctrl+- / Ctrl+0), theme, and presentation
mode (F5: a bigger font and only the panels a lesson needs). Choices are remembered in the settings."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QMainWindow

from gpuviz.app import appearance
from gpuviz.app.settings import settings, value

THEMES = ("dark", "light")
PRESENTATION_DOCKS = ("Lesson", "Launch", "Animation")  # what a lesson needs on a projector


class ViewControls:
    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.theme = value("theme", "dark", str)
        self.theme = self.theme if self.theme in THEMES else "dark"
        self.font_scale = appearance.clamp(value("font_scale", 1.0, float))
        self.presenting = False
        self._hidden: list[QDockWidget] = []

    def apply(self) -> None:
        scale = self.font_scale * (appearance.PRESENTATION_SCALE if self.presenting else 1.0)
        appearance.apply(self.window, self.theme, scale)

    def zoom(self, steps: int) -> None:
        """Ctrl+= (1), Ctrl+- (-1); 0 resets."""
        self.font_scale = appearance.clamp(self.font_scale * appearance.STEP**steps) if steps else 1.0
        settings().setValue("font_scale", self.font_scale)
        self.apply()

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        settings().setValue("theme", theme)
        self.apply()

    def toggle_theme(self) -> None:
        self.set_theme(THEMES[(THEMES.index(self.theme) + 1) % len(THEMES)])

    def toggle_presentation(self) -> None:
        """Bigger text and only the lesson and launch panels; again restores the panels hidden."""
        self.presenting = not self.presenting
        if self.presenting:
            docks = self.window.findChildren(QDockWidget)
            self._hidden = [d for d in docks if d.isVisible() and d.objectName() not in PRESENTATION_DOCKS]
            for dock in self._hidden:
                dock.hide()
        else:
            for dock in self._hidden:
                dock.show()
            self._hidden = []
        self.apply()
