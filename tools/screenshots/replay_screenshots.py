"""Make the replay's screenshots in docs/ from the real app, offscreen:
`python tools/screenshots/replay_screenshots.py`."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
DOCS = Path(__file__).resolve().parents[2] / "docs"  # where the pictures go


def open_and_run(app, entry: str, size=(1600, 950)):
    from gpuviz.app.window.main_window import MainWindow

    window = MainWindow()
    window.resize(*size)
    window.show()
    rows = [r for r in range(window.catalog.count()) if window.catalog.entries[r].slug == entry]
    window.catalog.setCurrentRow(rows[0])
    window.run()
    started = time.time()
    while (window.runs.running or not window.runner.loader.idle) and time.time() - started < 120:
        app.processEvents()
        time.sleep(0.02)
    return window


def zoom(window, view_name: str, x0: float, y0: float, x1: float, y1: float, app) -> None:
    view = window.views[view_name].view
    view.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
    app.processEvents()


def save(window, app, name: str, tab: int, dock: str | None = None) -> None:
    from PySide6.QtWidgets import QDockWidget

    window.tabs.setCurrentIndex(tab)
    if dock:
        window.findChild(QDockWidget, dock).raise_()
    for _ in range(3):
        app.processEvents()
    window.grab().save(str(DOCS / name))
    print(name, "-", window.views["animation"].caption.text()[:120])
    window.close()


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from gpuviz.core.replay import AT_BARRIER

    os.environ["GPUVIZ_SETTINGS"] = str(Path(tempfile.mkdtemp()) / "settings.ini")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    pg.setConfigOptions(useOpenGL=False)

    window = open_and_run(app, "one-thread")  # one thread walks the array: the data view mid-run
    window.state.set_frame(int(0.4 * (window.state.plan.count - 1)))
    zoom(window, "data", -1, -1, 14, 5, app)
    save(window, app, "replay-one-thread.png", 1)

    window = open_and_run(app, "matmul")  # threads and warps of the matrix multiply, labelled
    window.views["animation"].colour.setCurrentText("warp")
    window.state.set_frame(int(0.3 * (window.state.plan.count - 1)))
    zoom(window, "grid", -0.5, -0.5, 17.5, 9.5, app)
    save(window, app, "replay-matmul-warps.png", 0)

    window = open_and_run(app, "the-race")  # the race: the answer's frame and the element's story
    window.views["lesson"].show_answer()
    save(window, app, "replay-race.png", 1, dock="Element story")

    window = open_and_run(app, "segmented-reduction")  # a barrier: threads of a block wait for the others
    replay = window.state.replay
    frame = next(k for k in range(replay.events) if replay.thread_states(k).count(AT_BARRIER) >= 2)
    window.state.set_frame(frame)
    zoom(window, "grid", -0.5, -0.5, 14.5, 1.5, app)
    save(window, app, "replay-barrier.png", 0)

    window = open_and_run(app, "histogram")  # the racy and the atomic histogram side by side, mid-run
    window.state.set_frame(int(0.6 * (window.state.plan.count - 1)))
    save(window, app, "replay-compare.png", 3)

    window = open_and_run(app, "add-arrays")  # values in the data view, mid-run
    window.state.set_frame(int(0.5 * (window.state.plan.count - 1)))
    zoom(window, "data", -1, -1, 14, 5, app)
    save(window, app, "replay-data-values.png", 1)


if __name__ == "__main__":
    main()
