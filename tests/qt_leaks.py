"""The Qt tests' leak check: a QTimer still active or a QThread still running after its test fails
the test, as napari's suite does. Timers and threads are noted when they start (`start` is wrapped
once a session), so the check walks no heap; QTimer.singleShot's timers are Qt's own and end with
their receiver, so they are not counted."""

from __future__ import annotations

import gc
import weakref

_started: dict[str, weakref.WeakSet] = {"QTimer": weakref.WeakSet(), "QThread": weakref.WeakSet()}
_installed = False


def watch_starts() -> None:
    """Wrap QTimer.start and QThread.start to note what starts (once a process)."""
    global _installed
    if _installed:
        return
    from PySide6.QtCore import QThread, QTimer

    for kind in (QTimer, QThread):
        kind.start = _noting(kind.start, _started[kind.__name__])
    _installed = True


def _noting(start, seen: weakref.WeakSet):
    def noted_start(self, *args, **kwargs):
        seen.add(self)
        return start(self, *args, **kwargs)

    return noted_start


def forget_starts() -> None:
    for seen in _started.values():
        seen.clear()


def still_running(process_wide=()) -> list[str]:
    """What started since `forget_starts` and still runs once posted deletions and the garbage are
    done: 'QTimer (interval 100 ms, parent MainWindow)' and the like. `process_wide` are objects
    that live as long as the process on purpose (the app's garbage-collection timer)."""
    import shiboken6
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    for _ in range(2):
        if app is not None:
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            app.processEvents()
        gc.collect()
    alive = [obj for seen in _started.values() for obj in list(seen) if shiboken6.isValid(obj)]
    running = [obj for obj in alive if not any(obj is kept for kept in process_wide) and _runs(obj)]
    return [_describe(obj) for obj in running]


def _runs(obj) -> bool:
    return obj.isActive() if hasattr(obj, "isActive") else obj.isRunning()


def _describe(obj) -> str:
    parent = obj.parent()
    owner = f", parent {type(parent).__name__}" if parent is not None else ""
    interval = f"interval {obj.interval()} ms" if hasattr(obj, "interval") else "running"
    return f"{type(obj).__name__} ({interval}{owner})"


def app_timers() -> tuple:
    """Timers the app keeps for the whole process on purpose."""
    from gpuviz.app.window import gui_gc

    collector = gui_gc._collector
    return (collector.timer,) if collector is not None else ()
