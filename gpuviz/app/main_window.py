"""The main window: assembles the views as docks and wires the actions. Views never call each other."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

import gpuviz
from gpuviz.app.run_service import RunService
from gpuviz.app.state import AppState
from gpuviz.app.views.animation_bar import AnimationBar
from gpuviz.app.views.code_view import CodeView
from gpuviz.app.views.data_view import DataView
from gpuviz.app.views.editor import SourceEditor
from gpuviz.app.views.grid_view import GridView
from gpuviz.app.views.launch_editor import LaunchEditor
from gpuviz.app.views.lesson_view import LessonView
from gpuviz.app.views.race_view import RaceView
from gpuviz.app.views.record_view import RecordView, thread_record
from gpuviz.app.views.timeline_view import TimelineView
from gpuviz.catalog import catalog
from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import RunOptions
from gpuviz.run.messages import RunRequest

STYLE = """
QWidget { font-size: 13px; }
QMainWindow, QDockWidget, QWidget { background: #1b1c24; color: #e6e6ee; }
QLabel#gridCaption { font-size: 16px; font-weight: bold; padding: 6px; }
QLabel#status { font-size: 14px; padding: 4px; }
QPushButton { background: #2c2e3b; border: 1px solid #444; padding: 4px 10px; }
QPushButton#run { background: #2e7d32; font-weight: bold; font-size: 15px; }
QListWidget, QComboBox, QSpinBox { background: #242530; border: 1px solid #3a3b48; }
"""


def settings() -> QSettings:
    path = os.environ.get("GPUVIZ_SETTINGS")
    return QSettings(path, QSettings.Format.IniFormat) if path else QSettings("gpuviz", "gpuviz")


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle(f"gpuviz {gpuviz.__version__}")
        self.setStyleSheet(STYLE)
        self.state = AppState()
        self.runs = RunService(self)
        self.script_path: Path | None = None
        self.trace_paths: list[str] = []
        self._work = tempfile.TemporaryDirectory(prefix="gpuviz-")
        self._loaded: dict[str, object] = {}  # trace path -> Trace
        self._run_count = 0
        self._build_views()
        self._build_actions()
        self._connect()
        self._restore_layout()

    # ---- building ------------------------------------------------------------------------------
    def _build_views(self) -> None:
        from gpuviz.backends import unavailable_reason

        self.grid = GridView(self.state)  # first: other views read the frames it computes
        self.data = DataView(self.state)
        self.timeline = TimelineView(self.state)
        self.tabs = QTabWidget()
        for widget, title in ((self.grid, "Threads"), (self.data, "Data"), (self.timeline, "SM timeline")):
            self.tabs.addTab(widget, title)
        self.setCentralWidget(self.tabs)
        self.races = RaceView(self.state)
        self.code = CodeView(self.state)
        self.editor = SourceEditor()
        self.catalog = QListWidget()
        self.entries = catalog()
        for index, entry in enumerate(self.entries):
            number = f"{entry.name[:2]}. " if entry.is_lesson else ""
            item = QListWidgetItem(f"{number}{entry.title}\n    {entry.description}")
            item.setData(Qt.ItemDataRole.UserRole, index)
            item.setToolTip(entry.description)
            self.catalog.addItem(item)
        self.open_button = QPushButton("Open script...")
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("run")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        gpu_reason = unavailable_reason("gpu")
        facts = "GPU: usable" if gpu_reason is None else "simulator: 132 virtual SMs, 2,048 threads each, warp 32"
        self.launch = LaunchEditor(gpu_reason, f"device: {facts}; at most 1,024 threads per block")
        self.record = RecordView(self.state)
        self.lesson = LessonView(self.state)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.animation = AnimationBar(self.state, lambda: self.grid.frames)
        self.status = QLabel("Pick a kernel from the catalog, or open your own script.")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        left = _column(QLabel("<b>Kernels</b>"), self.catalog, self.open_button)
        right = _column(self.launch, self.run_button, self.stop_button, self.record, self.legend)
        bottom = _column(self.animation, self.status)
        docks = [
            self._dock("Catalog", left, Qt.DockWidgetArea.LeftDockWidgetArea),
            self._dock("Source", self.editor, Qt.DockWidgetArea.LeftDockWidgetArea),
            self._dock("Launch", right, Qt.DockWidgetArea.RightDockWidgetArea),
        ]
        lesson = self._dock("Lesson", self.lesson, Qt.DockWidgetArea.RightDockWidgetArea)
        races = self._dock("Races", self.races, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(lesson, races)
        lesson.raise_()
        code = self._dock("Code", self.code, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(docks[1], code)
        docks[1].raise_()
        self._dock("Animation", bottom, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.resizeDocks(docks, [430, 430, 400], Qt.Orientation.Horizontal)

    def _dock(self, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_actions(self) -> None:
        actions = [
            ("Run", "Ctrl+R", self.run),
            ("Open...", "Ctrl+O", self.open_dialog),
            ("Export view...", "Ctrl+E", self.export_dialog),
            ("Full screen", "F11", self.toggle_full_screen),
            ("Play / pause", "Space", self.animation.toggle),
            ("Step back", "Left", lambda: self.animation.step(-1)),
            ("Step forward", "Right", lambda: self.animation.step(1)),
        ]
        menu = self.menuBar().addMenu("&gpuviz")
        for text, keys, slot in actions:
            action = QAction(text, self)
            action.setShortcut(QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            menu.addAction(action)

    def _connect(self) -> None:
        self.catalog.currentItemChanged.connect(self._on_catalog_item_changed)
        self.open_button.clicked.connect(self.open_dialog)
        self.run_button.clicked.connect(self.run)
        self.stop_button.clicked.connect(self.runs.stop)
        self.runs.stage.connect(self._on_stage)
        self.runs.trace_ready.connect(self._on_trace_ready)
        self.runs.failed.connect(self._on_failed)
        self.runs.finished.connect(self._on_finished)
        self.launch.launch_changed.connect(self._on_launch_changed)
        self.launch.launch_picker.currentIndexChanged.connect(self._on_launch_picked)
        self.grid.hovered.connect(self._on_hovered)
        self.state.trace_changed.connect(self._on_trace_changed)
        self.state.colour_mode_changed.connect(lambda _: self._show_legend())

    # ---- opening -------------------------------------------------------------------------------
    def open_path(self, path: str | Path) -> None:
        """Open a script (ready to run) or a saved trace; bad files get a one-line message."""
        path = Path(path)
        try:
            if path.suffix == ".npz":
                self._loaded.pop(str(path), None)  # a file opened again may have been written again
                self._show_traces([str(path)])
                self.set_status(f"opened {path.name}")
            else:
                self.editor.setPlainText(path.read_text())
                self.script_path = path
                self.state.set_entry(None)
                self.trace_paths = []  # the launches shown belong to the previous script
                self.launch.launch_picker.clear()
                self._launch_edited = False
                self.editor.mark_line(0)
                self.set_status(f"{path.name} is ready: set the launch and press Run (Ctrl+R)")
        except (OSError, UnicodeDecodeError, GpuvizError) as exc:
            self.set_status(f"error: {exc}", error=True)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open script or trace", "", "Scripts and traces (*.py *.npz)")
        if path:
            self.open_path(path)

    def export_dialog(self) -> None:
        from gpuviz.app.export import export_widget

        path, _ = QFileDialog.getSaveFileName(self, "Export the view", "view.png", "PNG or SVG (*.png *.svg)")
        if path:
            try:
                export_widget(self.tabs.currentWidget(), path)
                self.set_status(f"exported {Path(path).name}")
            except GpuvizError as exc:
                self.set_status(f"error: {exc}", error=True)

    def _on_catalog_item_changed(self, item, _previous) -> None:
        if item is not None:
            entry = self.entries[item.data(Qt.ItemDataRole.UserRole)]
            self.open_path(entry.path)
            self.state.set_entry(entry)

    # ---- running -------------------------------------------------------------------------------
    def run(self) -> None:
        if self.runs.running:
            return
        if not self.editor.toPlainText().strip():
            self.set_status("error: nothing to run; pick a kernel or open a script", error=True)
            return
        config = self.launch.config()
        if config is None:
            self.set_status(f"error: {self.launch.message.text()}", error=True)
            return
        self._run_count += 1
        folder = Path(self._work.name) / f"run{self._run_count}"
        folder.mkdir()
        script = folder / (self.script_path.name if self.script_path else "script.py")
        script.write_text(self.editor.toPlainText())
        overrides = ()
        if self._launch_edited:  # the launch picked (the first one before any run) gets the edited launch
            overrides = ((max(0, self.launch.launch_picker.currentIndex()), config.grid, config.block),)
        entry, backend, repeat = self.state.entry, self.launch.backend_name(), self.launch.repeat.value()
        options = entry.run_options(backend, repeat) if entry else RunOptions(backend=backend, repeat=repeat)
        self.editor.mark_line(0)
        self.trace_paths = []
        self.runs.start(RunRequest(str(script), str(folder / "traces"), options, overrides))
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)

    def _on_stage(self, stage) -> None:
        self.set_status(stage.detail or stage.stage)

    def _on_trace_ready(self, ready) -> None:
        self.trace_paths.append(ready.path)
        self._show_traces(self.trace_paths)

    def _on_failed(self, message: str, line: int) -> None:
        self.set_status(f"error: {message}", error=True)
        if line:
            self.editor.mark_line(line)

    def _on_finished(self, ok: bool) -> None:
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        if ok:
            self.set_status(f"finished: {len(self.trace_paths)} launch(es) traced")

    # ---- launches and traces ---------------------------------------------------------------------
    def _show_traces(self, paths: list[str]) -> None:
        picker = self.launch.launch_picker
        keep = max(0, picker.currentIndex()) if picker.count() == len(paths) else len(paths) - 1
        picker.blockSignals(True)
        picker.clear()
        for path in paths:
            picker.addItem(Path(path).stem)
        picker.setCurrentIndex(min(keep, len(paths) - 1))
        picker.blockSignals(False)
        self.trace_paths = list(paths)
        self._on_launch_picked(picker.currentIndex())

    def _on_launch_picked(self, index: int) -> None:
        if 0 <= index < len(self.trace_paths):
            self.state.launches = [self._load(path) for path in self.trace_paths]
            trace = self.state.launches[index]
            self.state.set_trace(trace)
            self.launch.set_launch(trace.grid, trace.block)
            self._launch_edited = False

    def _load(self, path: str):
        """Each trace file is read once: a run's launches arrive one by one, and each shows them all."""
        if path not in self._loaded:
            self._loaded[path] = gpuviz.load(path)
        return self._loaded[path]

    def _on_launch_changed(self, config) -> None:
        self._launch_edited = True
        self.run_button.setEnabled(config is not None and not self.runs.running)

    _launch_edited = False

    def _on_trace_changed(self, trace) -> None:
        self._show_legend()

    def _show_legend(self) -> None:
        legend = getattr(self.grid, "legend", [])
        items = "".join(
            f"<span style='color: rgb{colour}'>&#9632;</span> {label}&nbsp;&nbsp; " for colour, label in legend
        )
        self.legend.setText(f"<b>Colour by {self.state.colour_mode}</b><br>{items}")

    def _on_hovered(self, gid: int) -> None:
        trace = self.state.trace
        self.grid.graphics.setToolTip(thread_record(trace, gid) if trace is not None and gid >= 0 else "")

    # ---- window ----------------------------------------------------------------------------------
    def set_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #ff6b6b;" if error else "")

    def toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def _restore_layout(self) -> None:
        store = settings()
        geometry, layout = store.value("geometry"), store.value("state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1500, 900)
        if layout is not None:
            self.restoreState(layout)

    def closeEvent(self, event) -> None:  # noqa: N802
        self.runs.stop()
        self.animation.pause()
        store = settings()
        store.setValue("geometry", self.saveGeometry())
        store.setValue("state", self.saveState())
        self._work.cleanup()
        super().closeEvent(event)


def _column(*widgets: QWidget) -> QWidget:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    for widget in widgets:
        layout.addWidget(widget)
    return holder
