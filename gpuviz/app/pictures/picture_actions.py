"""The window's picture actions: export the current view as a slide (Ctrl+E), copy it to the clipboard,
and export the animation as a clip with a progress bar. Each draws a Slide on a copy of the app state,
so the window itself is never resized or changed."""

from __future__ import annotations

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
    QWidget,
)

from gpuviz.app.pictures.clip import frame_range, write_clip
from gpuviz.app.pictures.picture import THEMES, PictureOptions, Slide, write_picture
from gpuviz.core.errors import GpuvizError

SIZES = ("1920x1080", "1280x720", "3840x2160", "1600x900", "1024x768", "640x360")


def current_view(window) -> str | None:
    """The name of the view in the window's current tab."""
    shown = window.tabs.currentWidget()
    return next((name for name, widget in window.views.items() if widget is shown), None)


def slide_of(window, view: str, theme: str) -> Slide:
    slide = Slide(view, theme)
    slide.state.apply(window.state.scene(), replay=window.state.replay)
    return slide


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
            self.size_box.setCurrentText("640x360")
            form.addRow("frames a second", self.fps)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def options(self) -> PictureOptions:
        from gpuviz.app.pictures.export import parse_size

        return PictureOptions(parse_size(self.size_box.currentText()), self.scale.value(), self.theme.currentText())


def _ask(window, clip: bool, name: str, formats: str) -> tuple[PictureDialog, str] | None:
    view = current_view(window)
    if window.state.trace is None or view is None:
        window.set_status("error: nothing to export yet; run a kernel or open a trace", error=True)
        return None
    dialog = PictureDialog(window, clip)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    path, _ = QFileDialog.getSaveFileName(window, dialog.windowTitle(), f"{window.state.trace.kernel}-{view}{name}",
                                          formats)  # fmt: skip
    return (dialog, path) if path else None


def export_picture(window) -> None:
    """Ctrl+E: the current view with its title, legend and caption, as PNG or SVG."""
    asked = _ask(window, False, ".png", "PNG or SVG (*.png *.svg)")
    if asked is not None:
        dialog, path = asked
        _report(window, lambda: save_picture(window, path, dialog.options()))


def save_picture(window, path: str | Path, options: PictureOptions) -> Path:
    slide = slide_of(window, current_view(window), options.theme)
    try:
        return write_picture(slide, path, options)
    finally:
        slide.close()


def copy_picture(window) -> None:
    """The current view as a slide of the tab's size, on the clipboard."""
    view = current_view(window)
    if window.state.trace is None or view is None:
        window.set_status("error: nothing to copy yet; run a kernel or open a trace", error=True)
        return
    shown = window.tabs.currentWidget()
    options = PictureOptions((max(320, shown.width()), max(240, shown.height())), window.devicePixelRatioF())
    slide = slide_of(window, view, options.theme)
    try:
        QGuiApplication.clipboard().setImage(slide.image(options))
    finally:
        slide.close()
    window.set_status(f"copied a picture of the {view} view")


def export_animation(window) -> None:
    """Every frame of the animation as a GIF or MP4, with a progress bar that can cancel."""
    asked = _ask(window, True, ".gif", "GIF or MP4 (*.gif *.mp4)")
    if asked is not None:
        dialog, path = asked
        _report(window, lambda: save_animation(window, path, dialog.options(), dialog.fps.value()))


def save_animation(window, path: str | Path, options: PictureOptions, fps: float) -> Path | None:
    slide = slide_of(window, current_view(window), options.theme)
    frames = frame_range(slide.state.plan.count)
    progress = QProgressDialog(f"Drawing {len(frames)} frames...", "Cancel", 0, len(frames), window)
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


def _report(window, save) -> None:
    try:
        path = save()
    except GpuvizError as exc:
        window.set_status(f"error: {exc}", error=True)
        return
    window.set_status(f"exported {Path(path).name}" if path else "export cancelled")
