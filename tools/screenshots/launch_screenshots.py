"""Screenshots of the launch panel from the real app, offscreen at 1280x720: the device picked in the
launch editor, the busy state of a long launch with its time left, and the question before a launch
whose trace cannot fit the memory budget: `python tools/screenshots/launch_screenshots.py` writes docs/launch-*.png."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
DOCS = Path(__file__).resolve().parents[2] / "docs"  # where the pictures go
SIZE = (1280, 720)
LONG = """import numpy as np
from numba import cuda

@cuda.jit
def spin(out):
    i = cuda.grid(1)
    acc = 0.0
    for k in range(LOOP):
        acc += (i * k) % 7
    out[i] = acc

out = np.zeros(256 * 1024, np.float32)
spin[1024, 256](out)
"""


def spin_script(home: Path, loop: int) -> Path:
    path = home / "spin.py"
    path.write_text(LONG.replace("LOOP", str(loop)))
    return path


def pick_device(window, name: str) -> None:
    box = window.launch.device_choice
    box.setCurrentIndex(box.findData(name))
    box.activated.emit(box.currentIndex())


def wait(app, until, seconds: float = 120) -> None:
    started = time.time()
    while not until() and time.time() - started < seconds:
        app.processEvents()
        time.sleep(0.02)


def new_window(app):
    from PySide6.QtCore import QSize

    from gpuviz.app.window import screen_fit
    from gpuviz.app.window.main_window import MainWindow

    home = Path(tempfile.mkdtemp())  # a first start: no layout remembered
    os.environ["GPUVIZ_SETTINGS"] = str(home / "settings.ini")
    os.environ["GPUVIZ_DATA"] = str(home / "data")
    window = MainWindow()
    screen_fit.fit(window, QSize(*SIZE))
    window.resize(*SIZE)
    window.show()
    app.processEvents()
    return window, home


def save(widget, name: str) -> None:
    widget.grab().save(str(DOCS / name))
    print(name, widget.size().toTuple())


def device_choice(app) -> None:
    """1,024 blocks of 256 on the T4 picked in the launch panel: 160 blocks at a time, in waves."""
    window, home = new_window(app)
    window.open_path(spin_script(home, 100))
    pick_device(window, "t4")
    window.run()
    wait(app, lambda: not window.runs.running and window.runner.loader.idle)
    window.tabs.setCurrentIndex(next(i for i in range(window.tabs.count()) if window.tabs.tabText(i) == "SM timeline"))
    for _ in range(5):
        app.processEvents()
    save(window, "launch-device-t4.png")
    close(window)


def busy(app) -> None:
    """A long launch half way: Running..., Stop, and the bar with blocks done and the time left."""
    window, home = new_window(app)
    window.open_path(spin_script(home, 4000))
    pick_device(window, "t4")
    window.run()
    wait(app, lambda: "left" in window.feedback.bar.text() or not window.runs.running)
    wait(app, lambda: False, 0.5)
    save(window, "launch-busy.png")
    window.runner.stop()
    close(window)


def big_launch_question(app) -> None:
    """The question before a launch whose accesses do not fit a 128 MiB budget."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from gpuviz.app.window.preferences import Preferences

    window, home = new_window(app)
    window.apply_preferences(Preferences(memory_budget_mib=128))
    window.open_path(spin_script(home, 100))
    window.launch.override.setChecked(True)
    window.launch.set_launch((4096, 1, 1), (512, 1, 1))  # 2,097,152 threads: accesses are still recorded

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(50, answer)
            return
        for _ in range(5):
            app.processEvents()
        save(box, "launch-big-question.png")
        next(b for b in box.buttons() if b.text() == "Cancel").click()

    QTimer.singleShot(0, answer)
    window.run()
    close(window)


def close(window) -> None:
    window.document.editor.document().setModified(False)
    window.close()


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    pg.setConfigOptions(useOpenGL=False, antialias=False)
    device_choice(app)
    busy(app)
    big_launch_question(app)


if __name__ == "__main__":
    main()
