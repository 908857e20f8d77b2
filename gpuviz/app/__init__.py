"""The desktop app (PySide6 + pyqtgraph). The only package that imports Qt."""

from __future__ import annotations

import sys


def main(path: str | None = None, lessons: str | None = None) -> int:
    """Open the main window, optionally with a script or a trace and a teacher's folder of lessons, and
    run Qt's event loop."""
    import os

    from gpuviz.core.errors import GpuvizError

    headless = sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if headless and not os.environ.get("QT_QPA_PLATFORM"):
        raise GpuvizError(
            "no display to open the app on; use the command line (gpuviz run SCRIPT, gpuviz render TRACE ...) "
            "or start it where there is a screen"
        )
    from gpuviz.app.window.system_libraries import missing_xcb_line

    missing = missing_xcb_line()
    if missing:
        print(missing, file=sys.stderr)
        return 1
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from gpuviz.app.window.main_window import MainWindow

    pg.setConfigOptions(useOpenGL=False, antialias=False)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(lessons)
    if path:
        window.open_path(path)
    window.show()
    return app.exec()
