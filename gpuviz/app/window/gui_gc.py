"""Python's cyclic garbage collector runs on the GUI thread only, on a timer.

Left automatic, a collection runs in whichever thread happens to allocate: the trace loader's
thread, say, collecting a closed window's widgets. Their Qt destructors then run off the GUI thread
and can deadlock with it (seen in the test suite: the loading thread destroying a QMenu while holding
a Qt lock and waiting for the GIL, the GUI thread holding the GIL and waiting for that lock).
pyqtgraph's GarbageCollector turns automatic collection off and collects on a Qt timer instead."""

from __future__ import annotations

from pyqtgraph.util.garbage_collector import GarbageCollector

_collector: GarbageCollector | None = None


def collect_on_gui_thread() -> None:
    """Once a process, from the GUI thread (a QApplication must exist)."""
    global _collector
    if _collector is None:
        _collector = GarbageCollector(interval=1.0)
