"""The window's look, as actions: font scale (Ctrl+= / Ctrl+- / Ctrl+0), theme, and presentation
mode (F5: a bigger font and the stage, window/stage.py). Choices are remembered in the settings."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow

from gpuviz.app.window import appearance
from gpuviz.app.window.settings import remember, value

THEMES = ("dark", "light")


def system_theme() -> str:
    """The desktop's light or dark scheme (dark where the platform does not say)."""
    hints = QGuiApplication.styleHints()
    return "light" if hints is not None and hints.colorScheme() == Qt.ColorScheme.Light else "dark"


class ViewControls:
    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.theme = value("theme", system_theme(), str)
        self.theme = self.theme if self.theme in THEMES else system_theme()
        self.font_scale = appearance.clamp(value("font_scale", 1.0, float))
        self.presenting = False
        self._everyday = None  # the layout before presentation mode (docks, their sizes)

    def apply(self) -> None:
        scale = self.font_scale * (appearance.PRESENTATION_SCALE if self.presenting else 1.0)
        appearance.apply(self.window, self.theme, scale)

    def zoom(self, steps: int) -> None:
        """Ctrl+= (1), Ctrl+- (-1); 0 resets."""
        self.font_scale = appearance.clamp(self.font_scale * appearance.STEP**steps) if steps else 1.0
        remember(font_scale=self.font_scale)
        self.apply()

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        remember(theme=theme)
        self.apply()

    def toggle_theme(self) -> None:
        self.set_theme(THEMES[(THEMES.index(self.theme) + 1) % len(THEMES)])

    def leave_presentation(self) -> None:
        if self.presenting:
            self.toggle_presentation()

    def toggle_presentation(self) -> None:
        """The stage (bigger text, the picture as the window); again restores the panels as they were."""
        self.presenting = not self.presenting
        size = self.window.size()
        if self.presenting:
            self._everyday = self.window.saveState()
            self.window.stage.enter()
        else:
            self.window.stage.leave()
            if self._everyday is not None:
                self.window.restoreState(self._everyday)
        self.apply()
        self.window.resize(size)  # the window keeps its size on the screen either way
