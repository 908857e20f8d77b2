"""The first Run of a session against the second: `the-race`'s race (the tutorial's [1024, 1024] launch,
4.2 M accesses) picked in the catalog and run twice from the app's Run button, offscreen, in one process;
seconds from Run to the grid's first frame of each.

A person opens the app, picks the lesson and presses Run: PAUSE_S after the window opens, and again
PAUSE_S after the first run's traces are loaded. `--cold` opens the window with no worker started ahead
(as before the warm start), the baseline. Prints `first_run first=<s> second=<s> ratio=<r> warm=<bool>`.
Run: `PYTHONPATH=$PWD python bench/first_run.py [--cold]`, in a fresh process each time.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent.parent))

PAUSE_S = 4.0  # picking a lesson; reading the first result
TIMEOUT_S = 300


def wait(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)


def run_to_first_frame(win, app) -> float:
    shown = []
    slot = lambda trace: shown.append(trace) if trace is not None else None  # noqa: E731
    win.state.trace_changed.connect(slot)
    started = time.perf_counter()
    win.run()
    while not shown:
        app.processEvents()
        if time.perf_counter() - started > TIMEOUT_S:
            raise SystemExit(f"no trace shown after {TIMEOUT_S} s")
        time.sleep(0.001)
    win.views["grid"].graphics.viewport().repaint()  # the first frame, drawn now
    app.processEvents()
    seconds = time.perf_counter() - started
    win.state.trace_changed.disconnect(slot)
    while win.runner.running or not win.runner.loader.idle:  # the run ends before the next one
        app.processEvents()
        time.sleep(0.005)
    return seconds


def main(warm: bool, lesson: str = "10.") -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    os.environ["GPUVIZ_SETTINGS"] = str(Path(tempfile.mkdtemp()) / "settings.ini")
    from gpuviz.app.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(useOpenGL=False)
    win = MainWindow(warm_worker=warm)
    win.resize(1280, 720)
    win.show()
    rows = [r for r in range(win.catalog.count()) if win.catalog.item(r).text().startswith(lesson)]
    win.catalog.setCurrentRow(rows[0])
    wait(app, PAUSE_S)
    first = run_to_first_frame(win, app)
    wait(app, PAUSE_S)
    second = run_to_first_frame(win, app)
    win.close()
    print(f"first_run first={first:.2f} second={second:.2f} ratio={first / second:.2f} warm={warm}")


if __name__ == "__main__":
    main(warm="--cold" not in sys.argv[1:], lesson="01." if "--smoke" in sys.argv[1:] else "10.")  # smoke: one thread
