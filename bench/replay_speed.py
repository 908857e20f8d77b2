"""Replay speed: how fast the replay answers for a frame of a big trace, and how soon the first frame
shows. Run: `python bench/replay_speed.py [threads]` (default 1,048,576: the tutorial's race; `--smoke`: 2,048).

Prints the trace's size with the figures: building the replay (once, off the GUI thread in the app),
then per frame: thread states, the raced element's value, and the whole grid picture as the app's
grid view draws it (offscreen), while playing at the "fastest" speed.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

RACE = """
from numba import cuda
@cuda.jit
def k(array):
    array[0] += 0.5
"""


def main(threads: int = 1 << 20) -> None:
    import gpuviz
    from gpuviz.core.replay import Replay

    started = time.perf_counter()
    trace = gpuviz.trace(RACE, backend="sim", level="accesses")[threads // 1024, 1024](np.zeros(1, np.float32))
    events = len(trace.accesses["thread"])
    seconds = time.perf_counter() - started
    print(f"trace: {trace.n_threads:,} threads, {events:,} access events (recorded in {seconds:.1f} s)")
    started = time.perf_counter()
    replay = Replay(trace)
    build = time.perf_counter() - started
    frames = np.linspace(0, events, 61).astype(int)
    started = time.perf_counter()
    for k in frames:
        replay.thread_states(int(k))
        replay.values_at(0, int(k))
    per_frame = (time.perf_counter() - started) / len(frames)
    print(f"replay built in {build:.3f} s; thread states + values: {per_frame * 1000:.1f} ms a frame "
          f"({1 / per_frame:.0f} frames/s)")
    fps, first = _drawn(trace, replay, frames)
    print(f"grid view: first frame {first:.3f} s after the trace is set; playing: {fps:.0f} frames/s")


def _drawn(trace, replay, frames) -> tuple[float, float]:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from gpuviz.app.views.grid_view import GridView
    from gpuviz.scene.state import AppState

    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(useOpenGL=False)
    state = AppState()
    view = GridView(state)
    view.resize(1200, 800)
    view.show()
    started = time.perf_counter()
    state.set_trace(trace, replay=replay)
    app.processEvents()
    first = time.perf_counter() - started
    started = time.perf_counter()
    for k in frames:
        state.set_frame(int(k))
        app.processEvents()
    return len(frames) / (time.perf_counter() - started), first


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:] if a != "--smoke"]  # --smoke: tests/test_bench_smoke.py
    main(sizes[0] if sizes else 2048 if "--smoke" in sys.argv else 1 << 20)
