"""Make the lesson panel's screenshots in docs/ from the real app, offscreen, at a projector's 1280x720:
a choice to commit to before Run, a choice committed and held against the run, and a fix checked in
the app: `python tools/screenshots/lesson_screenshots.py`."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
DOCS = Path(__file__).resolve().parents[2] / "docs"  # where the pictures go
FIX = DOCS.parent / "tests" / "lesson_fixes" / "the-race.py"
SIZE = (1280, 720)


def wait(app, busy, seconds: float = 120) -> None:
    started = time.time()
    while busy() and time.time() - started < seconds:
        app.processEvents()
        time.sleep(0.02)
    settle = time.time() + 0.3  # the panel scrolls to what changed once it is laid out
    while time.time() < settle:
        app.processEvents()
        time.sleep(0.02)


def save(app, window, name: str) -> None:
    wait(app, lambda: False)
    window.grab().save(str(DOCS / name))
    print(name, window.size().toTuple())


def pick(window, number: str) -> None:
    rows = [r for r in range(window.catalog.count()) if window.catalog.entries[r].slug == number]
    window.catalog.setCurrentRow(rows[0])


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QApplication

    from gpuviz.app.window import screen_fit
    from gpuviz.app.window.main_window import MainWindow

    pg.setConfigOptions(useOpenGL=False, antialias=False)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    home = Path(tempfile.mkdtemp())
    os.environ["GPUVIZ_SETTINGS"] = str(home / "settings.ini")
    os.environ["GPUVIZ_DATA"] = str(home / "data")
    window = MainWindow()
    screen_fit.fit(window, QSize(*SIZE))
    window.resize(*SIZE)
    window.show()
    lesson = window.views["lesson"]
    pick(window, "barrier-divergence")
    lesson.predict.choice_buttons[1].click()
    save(app, window, "lesson-before-run.png")
    pick(window, "the-race")
    lesson.predict.choice_buttons[1].click()
    lesson.predict.commit()
    window.run()
    wait(app, lambda: window.runs.running or not window.runner.loader.idle)
    save(app, window, "lesson-committed.png")
    lesson.show_answer()
    window.editor.setPlainText(FIX.read_text())
    lesson.fix.button.click()
    wait(app, lambda: window.course.fixes.running)
    save(app, window, "lesson-fix-checked.png")
    window.document.editor.document().setModified(False)
    window.close()


if __name__ == "__main__":
    main()
