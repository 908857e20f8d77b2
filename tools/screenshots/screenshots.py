"""Make the screenshots in docs/ from the real app, offscreen: `python tools/screenshots/screenshots.py`."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
DOCS = Path(__file__).resolve().parents[2] / "docs"  # where the pictures go
TABS = {"app-timeline-waves.png": 2, "app-data-histogram.png": 1}  # shots of another central tab
SHOTS = [  # (file, catalog entry, colour mode, selected thread, frame fraction); -2: show the answer
    ("app-timeline-waves.png", "10. many threads", "SM", 5000, 1.0),
    ("app-data-histogram.png", "11. histogram", "block", 130, 1.0),
    ("app-lesson-race.png", "10. many threads", "value written", -2, 1.0),
    ("app-vector-add.png", "vector add", "warp", 37, 1.0),
    ("app-racy-counter.png", "racy counter", "value written", 300, 1.0),
    ("app-tiled-matmul.png", "tiled matmul", "block", 70, 1.0),
    ("app-animation.png", "shared reduction", "SM", -1, 0.4),
    ("app-lesson-waves.png", "10. many threads", "SM", -1, 0.5),
]


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication, QDockWidget

    os.environ["GPUVIZ_SETTINGS"] = str(Path(tempfile.mkdtemp()) / "settings.ini")
    from gpuviz.app.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    pg.setConfigOptions(useOpenGL=False)
    for name, entry, colour, thread, fraction in SHOTS:
        window = MainWindow()
        window.resize(1600, 950)
        window.show()
        rows = [r for r in range(window.catalog.count()) if window.catalog.item(r).text().lower().startswith(entry)]
        window.catalog.setCurrentRow(rows[0])
        window.run()
        started = time.time()
        while (window.runs.running or not window.runner.loader.idle) and time.time() - started < 120:
            app.processEvents()
            time.sleep(0.02)
        if name == "app-data-histogram.png":
            window.runner.pick_launch(0)  # the racy launch
            while not window.runner.loader.idle:
                app.processEvents()
                time.sleep(0.02)
        window.views['animation'].colour.setCurrentText(colour)
        window.state.set_frame(int(fraction * (window.state.plan.count - 1)))
        if thread >= 0:
            window.state.select(thread)
        if thread == -2:
            window.views['lesson'].show_answer()
        window.tabs.setCurrentIndex(TABS.get(name, 0))
        if name in TABS:  # show the race view beside the other tabs
            window.findChild(QDockWidget, "Races").raise_()
        app.processEvents()
        window.grab().save(str(DOCS / name))
        print(name, "-", window.status.text())
        window.close()


if __name__ == "__main__":
    main()
