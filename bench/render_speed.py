"""Grid view frame rate, offscreen: how fast the animation advances at 1 M and 16.8 M threads.

For each size the grid view gets a trace (threads only, times like a launch in waves) and steps
through the animation frames, painting each one (viewport repaint, 1280x800). The baseline in the
same run redraws every cell each frame (np.where over the whole picture, then setImage): the
naive way. Last line: `fps 1M=<n> 16M=<n>`.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gpuviz.app.views.grid_view import GridView  # noqa: E402
from gpuviz.core.colors import NOT_RUN  # noqa: E402
from gpuviz.core.trace.columns import thread_layout  # noqa: E402
from gpuviz.core.trace.model import Trace  # noqa: E402
from gpuviz.scene.state import AppState  # noqa: E402

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
FRAMES = 3 if SMOKE else 60
SIZES = (("1M", 4), ("16M", 8)) if SMOKE else (("1M", 4096), ("16M", 65536))  # label, blocks of 256


def synthetic_trace(blocks: int, per_block: int = 256) -> Trace:
    block_idx, thread_idx, warp, lane = thread_layout((blocks, 1, 1), (per_block, 1, 1))
    block = np.arange(blocks * per_block) // per_block
    start = (block // (132 * 8)) * 100 + block % 7  # waves of 132 SMs x 8 blocks
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": (block % 132).astype(np.int32), "t_start": start, "t_end": start + 50}  # fmt: skip
    meta = {"kernel": "bench", "grid": [blocks, 1, 1], "block": [per_block, 1, 1], "backend": "sim",
            "device": "bench", "time_unit": "tick", "arrays": []}  # fmt: skip
    return Trace(meta=meta, threads=threads)


def frames_per_second(app, view: GridView, state: AppState, naive: bool) -> float:
    state.set_frame(0)
    app.processEvents()
    steps = np.linspace(0, view.frames() - 1, FRAMES).round().astype(int)
    plan = state.plan  # the frames: threads lit by each (limits), in the order they light (order)
    started = time.perf_counter()
    for frame in steps:
        if naive:
            shown = plan.limits[frame]
            ranks = np.empty(len(plan.order), np.int64)
            ranks[plan.order] = np.arange(len(plan.order))
            pixels = np.full(view._pixels.shape, NOT_RUN, np.uint8)
            visible = ranks < shown
            pixels.ravel()[view._cells[visible]] = view._codes[visible]
            view.image.setImage(pixels, autoLevels=False, levels=(0, 255))
        else:
            state.set_frame(int(frame))
        view.graphics.viewport().repaint()
    return FRAMES / (time.perf_counter() - started)


def main() -> None:
    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(useOpenGL=False, antialias=False)
    results = {}
    for label, blocks in SIZES:
        state = AppState()
        view = GridView(state)
        view.resize(1280, 800)
        view.show()
        state.set_trace(synthetic_trace(blocks))
        fast = frames_per_second(app, view, state, naive=False)
        naive = frames_per_second(app, view, state, naive=True) if label == "1M" else float("nan")
        results[label] = fast
        ratio = f"; naive full redraw {naive:.1f} fps, ratio {fast / naive:.1f}" if naive == naive else ""
        print(f"{label}: {blocks * 256:,} threads, {view.frames} frames: {fast:.1f} fps{ratio}")
        view.close()
    print(f"fps 1M={results['1M']:.0f} 16M={results['16M']:.0f}")


if __name__ == "__main__":
    main()
