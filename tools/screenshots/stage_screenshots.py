"""Screenshots of the stage at 1280x720, from the real app offscreen: a run with out-of-bounds reads
(the editor's mark, the grid's marks, the banner, the status), the barrier-divergence lesson, and the
race lesson paused part way through Play; then presentation mode (F5, the stage) on three lessons, dark and
light, each lesson run after a committed prediction and its answer shown, its evidence view in front; and the
stage during a student's 1,024 x 1,024 tiled matmul, once while the fast path compiles and once while the
blocks are counted (a cache of its own, so that the compile happens).
Run: `PYTHONPATH=$PWD python tools/screenshots/stage_screenshots.py`."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parents[2] / "docs"  # the pictures go beside the docs that show them
OUT_OF_BOUNDS = """\
import numpy as np
from numba import cuda


@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    c[i] = a[i] + b[i]  # no bounds check: threads 1,000 to 1,023 read past the end


n = 1000
a, b, c = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
add[4, 256](a, b, c)
"""


def settle(app, window) -> None:
    started = time.time()
    while (window.runs.running or not window.runner.loader.idle) and time.time() - started < 120:
        app.processEvents()
        time.sleep(0.02)
    for _ in range(20):
        app.processEvents()
        time.sleep(0.02)


def shoot(app, window, name: str) -> None:
    settle(app, window)
    window.grab().save(str(HERE / name))
    print("wrote", HERE / name)


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    os.environ["GPUVIZ_SETTINGS"] = str(Path(tempfile.mkdtemp()) / "settings.ini")
    from gpuviz.app.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    pg.setConfigOptions(useOpenGL=False)
    window = MainWindow(warm_worker=False)
    window.resize(1280, 720)
    window.show()
    script = Path(tempfile.mkdtemp()) / "vector_add_out_of_bounds.py"
    script.write_text(OUT_OF_BOUNDS)
    window.open_path(script)
    window.run()
    settle(app, window)
    window.state.select(1000)
    shoot(app, window, "stage-out-of-bounds.png")
    for entry, name in (("18.", "stage-barrier-divergence.png"), ("10.", "stage-play-race.png")):
        rows = [r for r in range(window.catalog.count()) if window.catalog.item(r).text().startswith(entry)]
        window.catalog.setCurrentRow(rows[0])
        window.run()
        settle(app, window)
        if entry == "10.":
            bar = window.views["animation"]
            window.state.set_frame(0)
            bar.toggle()
            end = time.time() + 6.0  # six seconds of Play at the default step and speed
            while time.time() < end:
                app.processEvents()
                time.sleep(0.005)
            bar.pause()
        shoot(app, window, name)
    window.close()
    presentation(app)
    running_on_stage(app)


PRESENTED = (("10.", "race"), ("24.", "mandelbrot"), ("18.", "barrier"))


def presentation(app) -> None:
    """The stage at 1280x720: the picture is the window, the caption over its bottom edge."""
    from gpuviz.app.window.main_window import MainWindow

    for theme in ("dark", "light"):
        window = MainWindow(warm_worker=False)
        window.resize(1280, 720)
        window.look.set_theme(theme)
        window.show()
        window.look.toggle_presentation()
        for entry, name in PRESENTED:
            rows = [r for r in range(window.catalog.count()) if window.catalog.item(r).text().startswith(entry)]
            window.catalog.setCurrentRow(rows[0])
            predict = window.views["lesson"].predict
            if predict.choice_buttons:
                predict.choice_buttons[0].setChecked(True)
            for box in predict.number_boxes:
                box.setText("1")
            predict.commit()
            window.run()
            settle(app, window)
            window.views["lesson"].show_answer()
            settle(app, window)
            shoot(app, window, f"stage-present-{name}-{theme}.png")
        window.document.editor.document().setModified(False)
        window.close()


def running_on_stage(app) -> None:
    """The stage's row while a long run goes: Stop, the bar and the run's words where the transport was."""
    sys.path.insert(0, str(HERE.parent / "bench"))
    from matmul_command import script

    from gpuviz.app.window.main_window import MainWindow

    os.environ["GPUVIZ_CACHE_DIR"] = tempfile.mkdtemp()  # nothing compiled: the run hands over to the fast path
    path = Path(tempfile.mkdtemp()) / "matmul.py"
    path.write_text(script())
    window = MainWindow(warm_worker=False)
    window.resize(1280, 720)
    window.show()
    window.look.toggle_presentation()
    window.open_path(path)
    window.run()
    row = window.stage.bar
    for name, now in (("stage-running-compiling.png", lambda: "fast path" in window.stage.run_words),
                      ("stage-running-counting.png", lambda: row.progress.value() > 0)):  # fmt: skip
        started = time.time()
        while not now() and window.runs.running and time.time() - started < 300:
            app.processEvents()
            time.sleep(0.02)
        window.grab().save(str(HERE / name))
        print("wrote", HERE / name, window.stage.run_words, row.progress.format())
    settle(app, window)
    window.document.editor.document().setModified(False)
    window.close()


if __name__ == "__main__":
    main()
