"""Make the classroom screenshots in docs/ from the real app, offscreen, at a projector's 1280x720 and
a desktop's 1920x1080, dark and light, presentation mode off and on:
`python tools/screenshots/classroom_screenshots.py`.
Each window is capped at its screen size as on a real screen; the lesson is run and its answer shown."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
DOCS = Path(__file__).resolve().parents[2] / "docs"  # where the pictures go
SCREENS = ((1280, 720), (1920, 1080))
LESSON = "the-race"  # the race: the answer selects a racing thread and stops the replay where it is lost


def shoot(app, size: tuple[int, int], theme: str, presenting: bool) -> Path:
    from PySide6.QtCore import QSize

    from gpuviz.app.window import screen_fit
    from gpuviz.app.window.main_window import MainWindow

    home = Path(tempfile.mkdtemp())  # a first start on this screen: no layout remembered
    os.environ["GPUVIZ_SETTINGS"] = str(home / "settings.ini")
    os.environ["GPUVIZ_DATA"] = str(home / "data")
    window = MainWindow()
    screen_fit.fit(window, QSize(*size))
    window.resize(*size)
    window.look.set_theme(theme)
    window.show()
    app.processEvents()
    if presenting:
        window.look.toggle_presentation()
    rows = [r for r in range(window.catalog.count()) if window.catalog.entries[r].slug == LESSON]
    window.catalog.setCurrentRow(rows[0])
    window.run()
    started = time.time()
    while (window.runs.running or not window.runner.loader.idle) and time.time() - started < 120:
        app.processEvents()
        time.sleep(0.02)
    predict = window.views["lesson"].predict  # a prediction committed (the first choice): the answer may show
    if predict.choice_buttons:
        predict.choice_buttons[0].setChecked(True)
    for box in predict.number_boxes:
        box.setText("32768")
    predict.commit()
    window.views["lesson"].show_answer()
    for _ in range(5):
        app.processEvents()
    name = f"classroom-{size[0]}x{size[1]}-{theme}{'-presenting' if presenting else ''}.png"
    window.grab().save(str(DOCS / name))
    print(name, window.size().toTuple(), "needs at least", window.minimumSizeHint().toTuple())
    window.document.editor.document().setModified(False)
    window.close()
    return DOCS / name


def first_start(app) -> None:
    """The window as a student first sees it at 1280x720, and with F1's keys over it."""
    from PySide6.QtCore import QSize

    from gpuviz.app.window import screen_fit
    from gpuviz.app.window.main_window import MainWindow

    home = Path(tempfile.mkdtemp())
    os.environ["GPUVIZ_SETTINGS"] = str(home / "settings.ini")
    window = MainWindow()
    screen_fit.fit(window, QSize(*SCREENS[0]))
    window.resize(*SCREENS[0])
    window.show()
    for name in ("classroom-first-start.png", "classroom-keys.png"):
        for _ in range(5):
            app.processEvents()
        window.grab().save(str(DOCS / name))
        print(name)
        window.help.toggle()
    window.close()


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    pg.setConfigOptions(useOpenGL=False, antialias=False)
    first_start(app)
    for size in SCREENS:
        for theme in ("dark", "light"):
            for presenting in (False, True):
                shoot(app, size, theme, presenting)


if __name__ == "__main__":
    main()
