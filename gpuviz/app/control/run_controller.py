"""Runs the editor's script in a worker and shows its launches: the glue between the run service,
the trace loader and the app state. Qt signals tell the window what to say; the state gets traces."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from gpuviz.app.control import launch_check
from gpuviz.app.control.trace_loader import TraceLoader
from gpuviz.app.control.worker_host import WorkerHost
from gpuviz.app.widgets.launch_editor import LaunchChoice
from gpuviz.app.window.settings import data_dir
from gpuviz.core.analysis.report import is_analysed, races_in_run
from gpuviz.core.error_report import error_report, run_summary
from gpuviz.core.options import RunOptions
from gpuviz.core.streams import StreamTimeline
from gpuviz.run.messages import RunRequest
from gpuviz.scene.scene import Scene
from gpuviz.scene.state import AppState


class RunController(QObject):
    status = Signal(str, bool)  # text, is an error
    error_line = Signal(int)  # a line of the script to mark, 0 to clear
    error_lines = Signal(object)  # {line: errors on it} of the launch shown, {} to clear
    running_changed = Signal(bool)
    launches_listed = Signal(object, int)  # launch names, the one shown

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runs = WorkerHost(self)
        self.loader = TraceLoader(self)
        self.paths: list[str] = []  # traces of the run (or the file) shown
        self.shown = 0  # which of them
        self._work = tempfile.TemporaryDirectory(prefix="gpuviz-")
        self._count = 0
        self.keep_traces = False  # runs go to the user's data folder, kept after closing
        self._opening = ""  # the file being opened, for the status once it is shown
        self.note = ""  # said with the result: the launch was overridden
        self._pending: set[str] = set()  # traces of the run shown before their analysis arrived
        self._analyses: dict[str, dict] = {}  # analyses that arrived, for traces still loading
        self._shown_path = ""
        self.run_number = 0  # the run whose launches `paths` are (AppState.begin_run); 0 for a file or none
        self._traces: list = []  # the run's traces as last loaded
        self._finish_note: str | None = None  # "finished ..." waits for the run's traces: it counts their errors
        self.runs.stage.connect(lambda stage: self.status.emit(stage.detail or stage.stage, False))
        self.runs.trace_ready.connect(self._on_trace_ready)
        self.runs.analysis_ready.connect(self._on_analysis_ready)
        self.runs.streams_ready.connect(self._on_streams_ready)
        self.runs.output.connect(lambda text: state.set_output(state.output + text))
        self.runs.log.connect(lambda line: state.set_output(state.output + line + "\n"))
        self.runs.failed.connect(self._on_failed)
        self.runs.finished.connect(self._on_finished)
        self.loader.loaded.connect(self._on_loaded)
        state.launch_requested.connect(self.pick_launch)
        self.loader.failed.connect(self._on_load_failed)

    @property
    def running(self) -> bool:
        return self.runs.running

    def run(self, text: str, name: str, options: RunOptions, overrides: tuple = (), note: str = "",
            timeout: float | None = None) -> None:  # fmt: skip
        """Save the text as a script in this session's folder and run it in a worker process; `note`
        (an overridden launch) is said in the output and with the result."""
        self._count += 1
        if self.keep_traces:
            folder = data_dir("traces") / f"{time.strftime('%Y%m%d-%H%M%S')}-run{self._count}"
        else:
            folder = Path(self._work.name) / f"run{self._count}"
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / name
        script.write_text(text, encoding="utf-8")
        self.run_number = self.state.begin_run()
        self.paths = []
        self._pending.clear()
        self._analyses.clear()
        self.note = note
        self.state.set_output(f"[{note}]\n" if note else "")
        self.error_line.emit(0)
        self.error_lines.emit({})
        self._traces, self._finish_note = [], None
        self.runs.start(RunRequest(str(script), str(folder / "traces"), options, tuple(overrides), timeout=timeout))
        self.running_changed.emit(True)

    def start(self, text: str, name: str, choice: LaunchChoice, asked: RunOptions, timeout: float | None,
              parent: QWidget) -> None:  # fmt: skip
        """Run the editor's script as the launch panel asks: nothing to run or an invalid launch is one status
        line; a launch whose trace would not fit the memory budget asks first (a dialog over `parent`)."""
        if self.running:
            return
        if not text.strip():
            self.status.emit("error: nothing to run; pick a kernel or open a script", True)
            return
        if choice.config is None and choice.overridden:
            self.status.emit(f"error: {choice.problem}", True)
            return
        overrides, note = (), ""
        if choice.overridden:  # only when asked: the launch picked gets the fields' launch
            grid, block = choice.config.grid, choice.config.block
            overrides = ((choice.index, grid, block),)
            note = f"launch {choice.index + 1} overridden: grid {grid}, block {block}"
        options = launch_check.options_after_asking(parent, text, asked, overrides)
        if options is None:
            self.status.emit("not run: the launch's trace would not fit the memory budget", False)
            return
        note = "; ".join(filter(None, [note, launch_check.choice_note(asked, options)]))
        self.run(text, name, options, overrides, note, timeout)

    def stop(self) -> None:
        self.runs.stop()

    def open_trace(self, path: str) -> None:
        """Show a saved trace (read again: the file may have been written again)."""
        self.paths, self.shown, self.run_number = [path], 0, 0
        self._opening = Path(path).name
        self.loader.request(self.paths)
        self.state.set_busy(f"loading {Path(path).name}")

    def pick_launch(self, index: int) -> None:
        if not 0 <= index < len(self.paths):
            self.state.refuse_launch(index, "its trace is not loaded here any more; run the script again")
            return
        if index != self.shown or self.state.launch_index() != index:
            self.shown = index
            self.loader.request(self.paths, index, frozenset(self._pending))
            self.state.set_busy("loading the launch")

    def forget(self) -> None:
        """A new script or lesson: a run of the previous one stops, and its launches (shown, loading or still
        to come) are dropped."""
        if self.running:
            self.runs.stop()
        self.loader.cancel()
        self.paths, self.shown, self.run_number = [], 0, 0
        self._traces, self._finish_note = [], None
        self._pending.clear()
        self.state.set_busy("")
        self.launches_listed.emit([], -1)

    def close(self) -> None:
        self.runs.close()
        self.loader.close()
        self._work.cleanup()

    # ---- messages from the worker and the loader --------------------------------------------------
    def _on_trace_ready(self, ready) -> None:
        if not self.run_number:  # a run forgotten (another script picked) whose messages were on their way
            return
        self.paths.append(ready.path)
        if not ready.analysed:  # shown now; its analysis follows (never computed twice)
            self._pending.add(ready.path)
        self.shown = len(self.paths) - 1  # each new launch is shown as it arrives
        self.loader.request(self.paths, self.shown, frozenset(self._pending))

    def _on_streams_ready(self, ready) -> None:
        if self.run_number:  # not a forgotten run's
            self.state.set_streams(self.run_number, StreamTimeline.from_json(ready.timeline))

    def _on_analysis_ready(self, ready) -> None:
        self._pending.discard(ready.path)
        self._analyses[ready.path] = ready.analysis
        self.loader.set_analysis(ready.path, ready.analysis)
        if ready.path == self._shown_path and self.state.trace is not None:
            self.state.set_analysis(self.state.trace, ready.analysis)

    def _on_failed(self, message: str, line: int) -> None:
        self.status.emit(f"error: {message}", True)
        if not self.paths:  # nothing of this run to show: no earlier run's picture stays, and the views say why
            self.state.apply(Scene(run=self.run_number, stopped=message))
        self.state.set_output(self.state.output + f"error: {message}\n")
        if line:
            self.error_line.emit(line)

    def _on_finished(self, ok: bool) -> None:
        self.running_changed.emit(False)
        if self._pending:  # stopped before analysing: the loader analyses them, off the GUI thread
            self._pending.clear()
            self.loader.request(self.paths, self.shown)
        entry = self.state.entry
        if entry is not None and entry.launch is not None and entry.launch < len(self.paths):
            self.pick_launch(entry.launch)  # the launch the lesson's text explains
        if ok:
            note = f" ({self.note})" if self.note else ""
            self._finish_note = f"{len(self.paths)} launch(es) traced{note}"
            self._say_finished()

    def _say_finished(self) -> None:
        """The run's last word, once its traces are loaded: what went wrong in them, or that nothing did."""
        if self._finish_note is None or not self.loader.idle or len(self._traces) < len(self.paths):
            return
        wrong = run_summary(self._traces)
        races = races_in_run(self._traces)  # not an error (a lesson may race on purpose), but never unsaid
        note = f"{self._finish_note}; {races} (the Races tab)" if races else self._finish_note
        self.status.emit(f"finished with {wrong}: {note}" if wrong else f"finished: {note}", bool(wrong))
        self._finish_note = None

    def _on_loaded(self, paths: list[str], traces: list) -> None:
        self.state.set_busy("")
        shown = min(self.shown, len(traces) - 1)
        self.launches_listed.emit([Path(p).stem for p in paths], shown)
        for path, trace in zip(paths, traces):
            if path in self._analyses and not is_analysed(trace):  # it arrived while the trace loaded
                trace.analysis = self._analyses[path]
        self._shown_path = paths[shown]
        self.state.set_trace(traces[shown], traces, self.loader.replay_of(traces[shown]),
                             analysis_pending=paths[shown] in self._pending, run=self.run_number)  # fmt: skip
        if self._opening:
            self.status.emit(f"opened {self._opening}", False)
            self._opening = ""
        else:  # a launch of the run: its errors marked on the script's lines
            self._traces = traces
            self.error_lines.emit(error_report(traces[shown]).lines)
            self._say_finished()

    def _on_load_failed(self, message: str) -> None:
        self._opening = ""
        self.state.set_busy("")
        self.state.refuse_launch(self.shown, message)
        self.status.emit(f"error: {message}", True)
