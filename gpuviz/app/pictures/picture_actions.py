"""The window's picture actions: export the current view as a slide (Ctrl+E), copy it to the clipboard,
and export the animation as a clip with a progress bar. Each draws a Slide on a copy of the app state,
so the window itself is never resized or changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QProgressDialog,
    QTabWidget,
    QWidget,
)

from gpuviz.app.pictures.clip import write_clip
from gpuviz.app.pictures.export import CLIP_SIZE, parse_size
from gpuviz.app.pictures.picture import PictureOptions, write_picture
from gpuviz.app.pictures.slide import Slide
from gpuviz.core.cursor import frame_range
from gpuviz.core.errors import GpuvizError
from gpuviz.core.theme_colours import THEMES
from gpuviz.scene.state import AppState

Status = Callable[..., None]  # status(text, error=False): one line in the window's status bar

SIZES = ("1920x1080", "1280x720", "3840x2160", "1600x900", "1024x768", "640x360")


class PictureDialog(QDialog):
    """Size, scale and theme of a picture; frames a second too for a clip."""

    def __init__(self, parent: QWidget, clip: bool) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export animation" if clip else "Export picture")
        self.size_box = QComboBox()
        self.size_box.addItems(list(SIZES))
        self.size_box.setEditable(True)
        self.scale = QDoubleSpinBox(minimum=0.25, maximum=8, value=1, singleStep=0.5)
        self.theme = QComboBox()
        self.theme.addItems(list(THEMES))
        self.fps = QDoubleSpinBox(minimum=0.1, maximum=60, value=8)
        form = QFormLayout(self)
        form.addRow("size (pixels)", self.size_box)
        form.addRow("scale", self.scale)
        form.addRow("theme", self.theme)
        if clip:
            self.size_box.setCurrentText("x".join(map(str, CLIP_SIZE)))
            form.addRow("frames a second", self.fps)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def options(self) -> PictureOptions:
        return PictureOptions(parse_size(self.size_box.currentText()), self.scale.value(), self.theme.currentText())


class PictureActions:
    """Export, copy and animate the view in front. Given what it uses (never the window): the app state,
    the tabs that hold the views, the views by name, a status line and the parent of its dialogs."""

    def __init__(self, state: AppState, tabs: QTabWidget, views: dict[str, QWidget], status: Status,
                 parent: QWidget) -> None:  # fmt: skip
        self.state, self.tabs, self.views, self.status, self.parent = state, tabs, views, status, parent

    def current_view(self) -> str | None:
        """The name of the view in the current tab."""
        shown = self.tabs.currentWidget()
        return next((name for name, widget in self.views.items() if widget is shown), None)

    def slide_of(self, view: str, theme: str) -> Slide:
        """A slide of one view on a copy of the scene on screen: the window's own views are left alone."""
        slide = Slide(view, theme)
        slide.state.apply(self.state.scene(), replay=self.state.replay)
        return slide

    def export_picture(self) -> None:
        """Ctrl+E: the current view with its title, legend and caption, as PNG or SVG."""
        asked = self._ask(False, ".png", "PNG or SVG (*.png *.svg)")
        if asked is not None:
            dialog, path = asked
            self._report(lambda: self.save_picture(path, dialog.options()))

    def save_picture(self, path: str | Path, options: PictureOptions) -> Path:
        slide = self.slide_of(self.current_view(), options.theme)
        try:
            return write_picture(slide, path, options)
        finally:
            slide.close()

    def copy_picture(self) -> None:
        """The current view as a slide of the tab's size, on the clipboard."""
        view = self.current_view()
        if self.state.trace is None or view is None:
            self.status("error: nothing to copy yet; run a kernel or open a trace", error=True)
            return
        shown = self.tabs.currentWidget()
        options = PictureOptions((max(320, shown.width()), max(240, shown.height())), self.parent.devicePixelRatioF())
        slide = self.slide_of(view, options.theme)
        try:
            QGuiApplication.clipboard().setImage(slide.image(options))
        finally:
            slide.close()
        self.status(f"copied a picture of the {view} view")

    def export_animation(self) -> None:
        """Every frame of the animation as a GIF or MP4, with a progress bar that can cancel."""
        asked = self._ask(True, ".gif", "GIF or MP4 (*.gif *.mp4)")
        if asked is not None:
            dialog, path = asked
            self._report(lambda: self.save_animation(path, dialog.options(), dialog.fps.value()))

    def save_animation(self, path: str | Path, options: PictureOptions, fps: float) -> Path | None:
        slide = self.slide_of(self.current_view(), options.theme)
        frames = frame_range(slide.state.plan.count)
        progress = QProgressDialog(f"Drawing {len(frames)} frames...", "Cancel", 0, len(frames), self.parent)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)

        def step(done: int, total: int) -> bool:
            progress.setValue(done)
            return not progress.wasCanceled()

        try:
            return write_clip(slide, path, frames, options, fps, step)
        finally:
            progress.close()
            slide.close()

    def _ask(self, clip: bool, name: str, formats: str) -> tuple[PictureDialog, str] | None:
        view = self.current_view()
        if self.state.trace is None or view is None:
            self.status("error: nothing to export yet; run a kernel or open a trace", error=True)
            return None
        dialog = PictureDialog(self.parent, clip)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        suggested = f"{self.state.trace.kernel}-{view}{name}"
        path, _ = QFileDialog.getSaveFileName(self.parent, dialog.windowTitle(), suggested, formats)
        return (dialog, path) if path else None

    def _report(self, save) -> None:
        try:
            path = save()
        except GpuvizError as exc:
            self.status(f"error: {exc}", error=True)
            return
        self.status(f"exported {Path(path).name}" if path else "export cancelled")
