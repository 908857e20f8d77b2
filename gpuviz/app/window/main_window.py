"""The main window: assembles the views of the table as tabs and docks, the controls and the actions.
Views never call each other: they share the app state."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QPushButton,
    QTabWidget,
    QWidget,
)

from gpuviz.app.control.course import Course
from gpuviz.app.control.device_facts import backend_for, facts_for
from gpuviz.app.control.document import ScriptDocument
from gpuviz.app.control.run_controller import RunController
from gpuviz.app.control.run_feedback import RunFeedback
from gpuviz.app.control.worker_host import warm_start_wanted
from gpuviz.app.pictures.picture_actions import PictureActions
from gpuviz.app.views.base import View
from gpuviz.app.views.table import BY_NAME, VIEWS, view_class
from gpuviz.app.widgets.catalog_panel import CatalogPanel
from gpuviz.app.widgets.editor import SourceEditor
from gpuviz.app.widgets.error_banner import ErrorBanner
from gpuviz.app.widgets.launch_editor import LaunchEditor
from gpuviz.app.window import docking, file_menu, screen_fit
from gpuviz.app.window.gui_gc import collect_on_gui_thread
from gpuviz.app.window.help_overlay import WELCOME, HelpOverlay
from gpuviz.app.window.preferences import Preferences, PreferencesDialog
from gpuviz.app.window.settings import listeners as settings_listeners
from gpuviz.app.window.settings import problems as settings_problems
from gpuviz.app.window.settings import remember, settings
from gpuviz.app.window.stage import Stage
from gpuviz.app.window.view_controls import ViewControls
from gpuviz.core.display import code_as_html, code_as_plain
from gpuviz.core.options import RunOptions
from gpuviz.core.thread_record import device_summary
from gpuviz.core.version import __version__
from gpuviz.program.dry_launches import dry_launches
from gpuviz.scene.state import AppState


class MainWindow(QMainWindow):
    def __init__(self, lessons: str | None = None, warm_worker: bool | None = None) -> None:
        """`lessons`: a teacher's folder of lessons for this session (else the preferences' folder);
        `warm_worker`: start a worker ahead for the first Run (None: unless GPUVIZ_WARM_WORKER=0)."""
        super().__init__()
        collect_on_gui_thread()  # before the loading thread exists (gui_gc.py says why)
        self.setWindowTitle(f"gpuviz {__version__}")
        self.state = AppState()
        self.runner = RunController(self.state, self)
        self.runs = self.runner.runs
        self.look = ViewControls(self)
        self.preferences = Preferences.load()
        self.views = {spec.name: view_class(spec)(self.state) for spec in VIEWS}
        self._build_controls()
        self._assemble()
        self.pictures = PictureActions(self.state, self.tabs, self.views, self.set_status, self)
        self.stage = Stage(self)
        self._build_actions()
        self._connect()
        self.course = Course(self.views["lesson"], self.catalog, self.state, self.set_status, self.editor.toPlainText,
                             self.launch.backend_name, self)  # fmt: skip
        self._lessons = lessons
        self._restore_layout()
        self.help = HelpOverlay(self)
        self.views["lesson"].text.show_markdown(WELCOME, terms=False)  # until a lesson is picked
        self.apply_preferences(self.preferences)
        if settings_problems:
            self.set_status(f"error: {settings_problems.pop()}", error=True)  # said once
        settings_listeners.append(self._say_settings_problem)  # a write that fails later: said once, here
        if self.document.restore_autosave():
            self._show_restored()
        if warm_start_wanted() if warm_worker is None else warm_worker:
            self.runs.warm()

    # ---- building ------------------------------------------------------------------------------
    def _build_controls(self) -> None:
        from gpuviz.backends import unavailable_reason

        self.editor = SourceEditor()
        self.document = ScriptDocument(self.editor, self)
        self.catalog = CatalogPanel()
        self.launch = LaunchEditor(unavailable_reason("gpu"))
        self.editor.setPlaceholderText(
            "Pick the first lesson in the Catalog (or open your own script), then press Run."
        )
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("run")
        self.run_button.setToolTip("Run the script and trace its launches (Ctrl+R)")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip("Stop the running script at once")
        self.stop_button.setEnabled(False)
        self.feedback = RunFeedback(self.run_button, self.stop_button, self)
        self.status = QLabel(
            "Welcome! Pick the first lesson in the Catalog, then press Run (Ctrl+R). F1 lists the keys."
        )
        self.status.setObjectName("status")
        screen_fit.elastic(self.status)
        self.statusBar().addWidget(self.status, 1)
        self.statusBar().addPermanentWidget(self.feedback.clock)

    def _assemble(self) -> None:
        """Tabs in the centre, docks around it; the views' places come from the table."""
        self.tabs = QTabWidget()
        self.banner = QLabel()  # what the views show, in a sentence: a lesson's evidence, above them
        self.banner.setObjectName("evidence")
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.RichText)  # a lesson's `code` in a code font
        self.banner.hide()
        self.error_banner = ErrorBanner(self.state)  # memory errors and barrier divergence, in words
        centre = docking.column(self.banner, self.error_banner, self.tabs)
        centre.layout().setContentsMargins(0, 0, 0, 0)
        self.setCentralWidget(centre)
        by_area: dict[str, list[tuple[str, QWidget]]] = {"left": [("Catalog", self.catalog), ("Source", self.editor)]}
        launch_panel = [docking.row(self.run_button, self.stop_button), self.feedback.bar, self.launch]
        for spec in VIEWS:
            widget = self.views[spec.name]
            if spec.area == "tab":
                self.tabs.addTab(widget, spec.title)
            elif spec.area == "launch":
                launch_panel.append(widget)
            else:
                by_area.setdefault(spec.area, []).append((spec.title, widget))
        self.tabs.currentChanged.connect(self._tell_tabs_on_screen)
        self._tell_tabs_on_screen(self.tabs.currentIndex())
        by_area["right"] = [("Launch", docking.column(*launch_panel))] + by_area.get("right", [])
        for area, panels in by_area.items():
            docking.dock_area(self, area, panels)

    def _tell_tabs_on_screen(self, current: int) -> None:
        """Views that wait while their tab is behind another (set_on_screen) learn which tab is in front."""
        for index in range(self.tabs.count()):
            view = self.tabs.widget(index)
            if isinstance(view, View):
                view.set_on_screen(index == current)

    def _build_actions(self) -> None:
        """Menus of (text, keys, what it does); a toolbar for what a teacher reaches for."""
        animation = self.views["animation"]
        menus = {
            "&Run": [("Run", "Ctrl+R", self.run), ("Play / pause", "Space", animation.toggle),
                     ("Step back", "Left", lambda: animation.step(-1)),
                     ("Step forward", "Right", lambda: animation.step(1))],
            "&View": [("Presentation mode", "F5", self.look.toggle_presentation),
                      ("Bigger text", "Ctrl+=", lambda: self.look.zoom(1)),
                      ("Smaller text", "Ctrl+-", lambda: self.look.zoom(-1)),
                      ("Normal text size", "Ctrl+0", lambda: self.look.zoom(0)),
                      ("Light / dark theme", "Ctrl+Shift+T", self.look.toggle_theme),
                      ("Full screen", "F11", self.toggle_full_screen)],
            "&Export": [("Export view...", "Ctrl+E", self.export_dialog),
                        ("Copy picture", "Ctrl+Shift+C", self.pictures.copy_picture),
                        ("Export animation...", "Ctrl+Shift+E", self.pictures.export_animation)],
            "&Help": [("Keys and help", "F1", lambda: self.help.toggle()),
                      ("Preferences...", "Ctrl+,", self.edit_preferences)],
        }  # fmt: skip
        file_menu.build(self)
        made = {}
        for title, actions in menus.items():
            menu = self.menuBar().addMenu(title)
            for text, keys, slot in actions:
                made[text] = file_menu.add_action(self, menu, text, keys, slot, f"{text} ({keys})")
        toolbar = self.addToolBar("Classroom")
        toolbar.setObjectName("classroom toolbar")
        for text in ("Run", "Presentation mode", "Bigger text", "Smaller text", "Light / dark theme", "Keys and help"):
            toolbar.addAction(made[text])

    def _connect(self) -> None:
        self.document.title_changed.connect(self._show_title)
        self.document.status.connect(self.set_status)
        self.catalog.entry_picked.connect(self._on_entry_picked)
        self.catalog.open_requested.connect(self.open_dialog)
        self.run_button.clicked.connect(self.run)
        self.stop_button.clicked.connect(self.runner.stop)
        self.runner.status.connect(self.set_status)
        self.runner.error_line.connect(self.editor.mark_line)
        self.runner.error_lines.connect(self.editor.mark_errors)
        self.runner.running_changed.connect(self._on_running_changed)
        self.runs.progress.connect(self.feedback.on_progress)
        self.runs.stage.connect(self.feedback.on_stage)
        self.runner.launches_listed.connect(self._on_launches_listed)
        self.launch.launch_changed.connect(self._on_launch_changed)
        self.launch.launch_picker.activated.connect(self.runner.pick_launch)
        self.launch.backend.currentIndexChanged.connect(lambda _: self._show_device())
        self.launch.device_picked.connect(self._on_device_picked)
        self.state.trace_changed.connect(self._on_trace_changed)
        self.state.busy_changed.connect(lambda what: what and self.set_status(f"{what}..."))
        self.state.view_requested.connect(self.raise_view)
        self.state.caption_changed.connect(self._show_caption)

    # ---- opening -------------------------------------------------------------------------------
    def open_path(self, path: str | Path) -> None:
        """Open a script (ready to run) or a saved trace; bad files get a one-line message."""
        path = Path(path)
        if path.suffix == ".npz":
            self.runner.open_trace(str(path))
            return
        if self.document.may_replace():
            self.state.set_entry(None)  # the user's own script: out of lesson mode
            self.catalog.show_entry(None)
            self._load(path)

    def _load(self, path: Path) -> None:
        self.set_status(f"{path.name} is ready: set the launch and press Run (Ctrl+R)")
        if self.document.load(path):
            self._new_script()

    def new_script(self) -> None:
        if self.document.may_replace():
            self.document.new()
            self._new_script()

    def _new_script(self) -> None:
        self.runner.forget()
        entry_launch = self.state.entry.launch if self.state.entry is not None else None
        self.launch.show_script_launches(dry_launches(self.editor.toPlainText()), entry_launch or 0)
        self.editor.mark_line(0)

    def _show_restored(self) -> None:
        """An autosave of a lesson comes back with its lesson text and the script's launches."""
        path = self.script_path.resolve() if self.script_path else None
        entries = [entry for entry in self.catalog.entries if entry.path.resolve() == path]
        if entries:
            self.state.set_entry(entries[0])
            self.catalog.show_entry(entries[0])
        self._new_script()

    @property
    def script_path(self) -> Path | None:
        return self.document.path

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open script or trace", "", "Scripts and traces (*.py *.npz)")
        if path:
            self.open_path(path)

    def export_dialog(self) -> None:
        self.pictures.export_picture()

    def _on_entry_picked(self, entry) -> None:
        if not self.document.may_replace():
            self.catalog.show_entry(self.state.entry)  # stay on the script with the unsaved changes
            return
        self.state.set_entry(entry)
        self._load(entry.path)
        self._show_device()

    # ---- running -------------------------------------------------------------------------------
    def run(self) -> None:
        name = self.script_path.name if self.script_path else "script.py"
        self.runner.start(self.editor.toPlainText(), name, self.launch.choice(), self._run_options(),
                          self.preferences.timeout(), self)  # fmt: skip

    def _run_options(self) -> RunOptions:
        entry, backend, repeat = self.state.entry, self.launch.backend_name(), self.launch.repeat.value()
        options = entry.run_options(backend, repeat) if entry else RunOptions(backend=backend, repeat=repeat)
        options = replace(options, guard=self.launch.guarded())
        return self.preferences.run_options(options)  # the device picked is kept in the preferences

    # ---- preferences -----------------------------------------------------------------------------
    def edit_preferences(self) -> None:
        dialog = PreferencesDialog(Preferences.load(), self)
        if dialog.exec():
            chosen = dialog.chosen()
            chosen.save()
            self.apply_preferences(chosen)

    def apply_preferences(self, preferences: Preferences) -> None:
        self.preferences = preferences
        self.look.theme, self.look.font_scale = preferences.theme, preferences.font_scale
        self.look.apply()
        self.state.set_palette(preferences.palette)
        self.launch.backend.setCurrentIndex(max(0, self.launch.backend.findData(preferences.backend)))
        self.launch.set_device_name(preferences.device)
        self.runner.keep_traces = preferences.keep_traces
        self._show_device()
        self.course.load_lessons(self._lessons or preferences.lessons_folder)

    def _on_device_picked(self, name: str) -> None:
        """The launch editor's device is the preferences' simulated device: kept for the next session."""
        self.preferences = replace(self.preferences, device=name)
        self.preferences.save()
        self._show_device()

    def _on_running_changed(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.stage.bar.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.feedback.set_running(running)
        self.stage.set_running(running)

    def _on_launches_listed(self, names: list[str], shown: int) -> None:
        picker = self.launch.launch_picker
        picker.blockSignals(True)
        picker.clear()
        picker.addItems(names)
        picker.setCurrentIndex(shown)
        picker.blockSignals(False)

    def _on_launch_changed(self, config) -> None:
        usable = config is not None or not self.launch.overridden()  # the fields count only when overriding
        self.run_button.setEnabled(usable and not self.runner.running)

    def _on_trace_changed(self, trace) -> None:
        if trace is not None:
            if not self.launch.overridden():
                self.launch.set_launch(trace.grid, trace.block)
            self.launch.set_device(device_summary(trace.device_facts, ran=True))

    def _show_device(self) -> None:
        """The device the next run will use, from the backend itself; a choice only on the simulator."""
        options = self._run_options()
        self.launch.offer_device_choice(backend_for(options) == "sim")
        self.launch.set_device(device_summary(facts_for(options)))

    # ---- window ----------------------------------------------------------------------------------
    def raise_view(self, name: str) -> None:
        """Bring a view of the table to the front: its tab, or its dock (docks are named by their titles)."""
        spec = BY_NAME.get(name)
        if spec is None:
            return
        if spec.area == "tab":
            self.tabs.setCurrentWidget(self.views[name])
            return
        dock = self.findChild(QDockWidget, spec.title)
        if dock is not None and self.stage.on:
            self.stage.show_panel(dock)
        elif dock is not None:
            dock.show()
            dock.raise_()

    def _show_caption(self, text: str) -> None:
        """Above the views everyday; on the stage the caption is over the picture (window/stage.py)."""
        self.banner.setText(code_as_html(text))
        self.banner.setVisible(bool(text) and not self.stage.on)

    def set_status(self, text: str, error: bool = False) -> None:
        self.status.setText(code_as_plain(text))  # errors name `gpuviz list` and the like: plain words here
        self.status.setProperty("error", error)  # the theme's style sheet gives an error its colour
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        if self.stage.on and (error or self.stage.error):  # no status bar on the stage: errors over the picture
            self.stage.say_error(text if error else "")

    def _show_title(self, title: str) -> None:
        self.setWindowTitle(f"{title} - gpuviz {__version__}")

    def toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def _restore_layout(self) -> None:
        store = settings()
        geometry, layout = store.value("geometry"), store.value("state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(screen_fit.first_size())
        if layout is not None:
            self.restoreState(layout)
        screen_fit.fit(self)
        self._first_start = layout is None

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self._first_start:  # laid out only once shown: then the side panels get their share
            self._first_start = False
            screen_fit.share_width(self)

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.document.may_replace():
            event.ignore()
            return
        self.document.discard_autosave()
        self.look.leave_presentation()  # the layout remembered is the everyday one
        self.views["animation"].pause()
        self.runner.close()
        self.course.close()
        remember(geometry=self.saveGeometry(), state=self.saveState())
        with contextlib.suppress(ValueError):
            settings_listeners.remove(self._say_settings_problem)
        super().closeEvent(event)

    def _say_settings_problem(self, text: str) -> None:
        self.set_status(f"error: {text}", error=True)
