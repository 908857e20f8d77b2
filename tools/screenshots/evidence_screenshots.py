"""Every catalog lesson's evidence as a class sees it: the real app offscreen at a projector's 1280x720, in
presentation mode (the stage), the lesson run after a committed prediction and its answer shown, then the
caption over the picture hidden, so the picture alone has to show the claim (its marks, call-out and
colours). `PYTHONPATH=$PWD python tools/screenshots/evidence_screenshots.py [--theme light] [SLUG ...]`
writes docs/evidence/SLUG.png (and -light.png for the light theme), named by the lesson's slug, which reordering the
course does not change."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "evidence"  # where the pictures go
SIZE = (1280, 720)


def settle(app, done, seconds: float = 180) -> None:
    started = time.time()
    while not done() and time.time() - started < seconds:
        app.processEvents()
        time.sleep(0.02)
    for _ in range(10):
        app.processEvents()
        time.sleep(0.02)


def shoot(app, window, row: int, theme: str) -> Path:
    window.catalog.setCurrentRow(row)
    panel = window.views["lesson"]
    predict = panel.predict  # a prediction committed first: the answer opens only then
    if predict.choice_buttons:
        predict.choice_buttons[0].setChecked(True)
    for box in predict.number_boxes:
        box.setText("1")
    predict.commit()
    window.run()
    settle(app, lambda: not window.runs.running and window.runner.loader.idle)
    panel.show_answer()
    settle(app, lambda: panel._pending is None and window.runner.loader.idle)
    window.stage.caption.say("")  # the caption hidden: what remains is the picture
    for _ in range(10):
        app.processEvents()
    name = window.state.entry.slug
    path = DOCS / f"{name}{'-light' if theme == 'light' else ''}.png"
    window.grab().save(str(path))
    print(path.name, "|", window.state.caption[:100], "|", "; ".join(m.label for m in window.state.marks))
    return path


def main() -> None:
    import pyqtgraph as pg
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QApplication

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lesson slugs, or today's numbers (default: every lesson)")
    parser.add_argument("--theme", choices=("dark", "light"), default="dark")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    pg.setConfigOptions(useOpenGL=False, antialias=False)
    home = Path(tempfile.mkdtemp())  # a first start: no layout remembered
    os.environ["GPUVIZ_SETTINGS"] = str(home / "settings.ini")
    os.environ["GPUVIZ_DATA"] = str(home / "data")
    from gpuviz.app.window import screen_fit
    from gpuviz.app.window.main_window import MainWindow

    DOCS.mkdir(parents=True, exist_ok=True)
    window = MainWindow(warm_worker=False)
    screen_fit.fit(window, QSize(*SIZE))
    window.resize(*SIZE)
    window.look.set_theme(args.theme)
    window.show()
    window.look.toggle_presentation()
    app.processEvents()
    for row, entry in enumerate(window.catalog.entries):
        wanted = not args.lessons or entry.slug in args.lessons or entry.name[:2] in args.lessons
        if entry.is_lesson and wanted:
            shoot(app, window, row, args.theme)
    window.document.editor.document().setModified(False)
    window.close()


if __name__ == "__main__":
    main()
