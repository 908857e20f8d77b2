"""Screenshots of lessons after their answer, with the evidence applied (the launch, the replay's cursor,
the selection and the raised view the lesson's `## Evidence` names), offscreen at a projector's 1280x720:
`python tools/screenshots/evidence_screenshots.py [NN ...]` writes docs/evidence-NN.png."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
DOCS = Path(__file__).resolve().parents[2] / "docs"  # where the pictures go
LESSONS = ("02", "03", "09", "10", "18", "20")
SIZE = (1280, 720)


def settle(app, done, seconds: float = 120) -> None:
    started = time.time()
    while not done() and time.time() - started < seconds:
        app.processEvents()
        time.sleep(0.02)
    for _ in range(5):
        app.processEvents()


def shoot(app, lesson: str) -> Path:
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
    rows = [r for r in range(window.catalog.count()) if window.catalog.item(r).text().startswith(lesson)]
    window.catalog.setCurrentRow(rows[0])
    window.run()
    settle(app, lambda: not window.runs.running and window.runner.loader.idle)
    panel = window.views["lesson"]
    predict = panel.predict  # a prediction committed first: the answer opens only then
    if predict.choice_buttons:
        predict.choice_buttons[0].setChecked(True)
    for box in predict.number_boxes:
        box.setText("1")
    predict.commit()
    panel.show_answer()
    settle(app, lambda: panel._pending is None and window.runner.loader.idle)
    path = DOCS / f"evidence-{lesson}.png"
    window.grab().save(str(path))
    print(path.name, "|", panel.evidence.text())
    window.document.editor.document().setModified(False)
    window.close()
    return path


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    pg.setConfigOptions(useOpenGL=False, antialias=False)
    for lesson in sys.argv[1:] or LESSONS:
        shoot(app, lesson)


if __name__ == "__main__":
    main()
