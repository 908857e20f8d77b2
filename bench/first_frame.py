"""Run to first frame in the app: the tutorial's race (`the-race`'s kernel at the tutorial's launch,
[1024, 1024] threads doing `a[i] += 0.5` on float32[2]) run from the app's Run button, through the
worker process, the trace file and the loader, until the window has drawn the launch.

Offscreen; the same launch recorded at level `threads` (no access log, no race analysis) is the
baseline measured in the same run. Prints when each stage arrived (the analysis too), then, last,
`first_frame accesses=<s> threads=<s> ratio=<r>` (best of REPEATS each).
Run: `PYTHONPATH=$PWD python bench/first_frame.py [grid]` (default 1024; `--smoke`: grid 2, once).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent.parent))

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
REPEATS = 1 if SMOKE else 3
TIMEOUT_S = 300


def run_once(win, app, level: str) -> tuple[float, list[tuple[str, float]]]:
    """Seconds from Run to the first frame drawn, and when each stage arrived."""
    from gpuviz.core.options import RunOptions

    marks: list[tuple[str, float]] = []
    started = time.perf_counter()

    def mark(what: str) -> None:
        marks.append((what, time.perf_counter() - started))

    connections = [
        (win.runner.runs.stage, lambda stage: mark(stage.stage)),
        (win.runner.runs.trace_ready, lambda _ready: mark("trace saved")),
        (win.runner.runs.analysis_ready, lambda _ready: mark("analysis arrived")),
        (win.state.trace_changed, lambda trace: mark("trace shown") if trace is not None else None),
    ]
    for signal, slot in connections:
        signal.connect(slot)
    win._run_options = lambda: RunOptions(backend="sim", level=level)  # the lesson's options, this level
    shown = len(marks)
    win.state.set_trace(None)
    win.run()
    deadline = time.perf_counter() + TIMEOUT_S
    while not any(what == "trace shown" for what, _ in marks[shown:]):
        app.processEvents()
        if time.perf_counter() > deadline:
            raise SystemExit(f"no trace shown after {TIMEOUT_S} s")
        time.sleep(0.001)
    win.views["grid"].graphics.viewport().repaint()  # the first frame, drawn now
    app.processEvents()
    seconds = time.perf_counter() - started
    mark("first frame")
    while win.runner.running or not win.runner.loader.idle:  # let the run end before the next one
        app.processEvents()
        time.sleep(0.005)
    for signal, slot in connections:
        signal.disconnect(slot)
    return seconds, marks


def main(grid: int = 1024) -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from gpuviz.app.window.main_window import MainWindow
    from gpuviz.catalog import find

    os.environ["GPUVIZ_SETTINGS"] = str(Path(tempfile.mkdtemp()) / "settings.ini")
    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(useOpenGL=False)
    win = MainWindow()
    win.resize(1400, 900)
    win.show()
    entry = find("10")
    win.state.set_entry(entry)
    text = entry.path.read_text(encoding="utf-8").replace("[64, 1024]", f"[{grid}, 1024]")
    win.editor.setPlainText(text)
    best = {}
    for level in ("threads", "accesses") * REPEATS:
        seconds, marks = run_once(win, app, level)
        best[level] = min(best.get(level, seconds), seconds)
        print(f"{level:9s} {seconds:6.2f} s: " + ", ".join(f"{what} {at:.2f}" for what, at in marks))
    win.close()
    ratio = best["accesses"] / best["threads"]
    print(f"first_frame accesses={best['accesses']:.2f} threads={best['threads']:.2f} ratio={ratio:.2f}")


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:] if a != "--smoke"]
    main(sizes[0] if sizes else 2 if SMOKE else 1024)
