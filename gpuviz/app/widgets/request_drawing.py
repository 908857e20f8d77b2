"""One warp's memory request drawn lane by lane for the Memory view: lanes on the left, the sectors (global
memory), banks (shared memory) or addresses (constant memory) they reach on the right, a line from each lane to
its place; the lines of a bank conflict or of a constant read served in turns red and dashed (a sign beside
the colour)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from gpuviz.app.widgets import plot_theme
from gpuviz.core.analysis.warp_detail import WarpRequest

LANE_PEN, CONFLICT_PEN = (0, 170, 220, 170), (255, 80, 60, 230)


def describe_request(request: WarpRequest, warp: int, line: int) -> str:
    """What the drawing shows, in words: whose request, and what it costs."""
    what = f"warp {warp}, line {line}: {request.kind} of <b>{request.array}</b> by {len(request.lanes)} lanes"
    if request.space == "shared":
        verdict = "no conflict" if request.cost == 1 else f"<b>{request.cost}-way bank conflict</b>"
        return f"{what}: lanes -> banks, {verdict} (red dashes: banks serving more than one word)"
    if request.space == "const":
        if request.cost == 1:
            return f"{what}: lanes -> constant addresses, one address: <b>1 turn</b> (a broadcast)"
        return (f"{what}: lanes -> constant addresses, {request.cost} distinct addresses: <b>{request.cost} turns</b>, "
                "one after another (red dashes)")  # fmt: skip
    return f"{what}: lanes -> 32-byte sectors, <b>{request.cost}</b> sectors where {request.ideal} would do"


def draw_request(plot: pg.PlotWidget, request: WarpRequest) -> int:
    """Lanes on the left, sectors or banks on the right, one line from each lane to where its element is.
    Returns the lanes between two labels (label_step), which the plot's height decided."""
    if request.space == "shared":
        targets, labels = np.arange(32), [f"bank {b}" for b in range(32)]
        place_y = request.places.astype(float)
        words_in = {b: len(set(request.words[request.places == b].tolist())) for b in range(32)}
        bad = np.array([words_in[int(p)] > 1 for p in request.places])
    else:
        sectors = np.unique(request.places)
        targets = np.linspace(0, 31, len(sectors)) if len(sectors) > 1 else np.array([15.5])
        word = "sector {}" if request.space == "global" else request.array + "[{}]"
        labels = [word.format(s) for s in sectors]
        if request.space == "const" and request.cost > 1:  # the cache serves one address a turn
            labels = [f"{label}: turn {k + 1}" for k, label in enumerate(labels)]
        place_y = targets[np.searchsorted(sectors, request.places)]
        bad = np.full(len(request.lanes), request.space == "const" and request.cost > 1)  # served in turns
    for mask, pen in ((~bad, LANE_PEN), (bad, CONFLICT_PEN)):
        if mask.any():
            x = np.repeat([[0.0, 1.0]], mask.sum(), axis=0).ravel()
            y = np.column_stack([request.lanes[mask], place_y[mask]]).ravel()
            style = Qt.PenStyle.DashLine if pen == CONFLICT_PEN else Qt.PenStyle.SolidLine  # not by colour alone
            plot.addItem(pg.PlotDataItem(x, y, connect="pairs", pen=pg.mkPen(pen, width=2, style=style)))
    plot.addItem(pg.ScatterPlotItem(np.zeros(32), np.arange(32), size=7, brush=(200, 200, 200)))
    plot.addItem(pg.ScatterPlotItem(np.ones(len(targets)), targets, size=7, brush=(255, 200, 0)))
    lanes = label_step(plot)
    for lane in range(0, 32, lanes):
        _label(plot, f"lane {lane}", -0.02, lane, anchor=(1, 0.5))
    step = max(1, round(len(labels) * lanes / 32))  # as far apart as the lanes' labels
    for y, text in list(zip(targets, labels))[::step]:
        _label(plot, text, 1.02, y, anchor=(0, 0.5))
    plot.setXRange(-0.35, 1.35)
    plot.setYRange(-1, 32)
    return lanes


def _label(plot: pg.PlotWidget, text: str, x: float, y: float, anchor: tuple) -> None:
    item = pg.TextItem(text, anchor=anchor)
    item.setPos(x, y)
    plot.addItem(item)
    plot_theme.follow(item)  # the theme's text colour on the plot's background


def label_step(plot: pg.PlotWidget) -> int:
    """Lanes between two labels (a power of two, 4 at least), so that labels a line and a half apart fit the
    plot's height: every fourth lane where there is room, fewer where the drawing is short."""
    room = max(1.0, plot.getViewBox().height() / 33)  # pixels per lane (the range is -1..32)
    needed = 1.5 * plot.fontMetrics().height()
    step = 4
    while step < 32 and step * room < needed:
        step *= 2
    return step


def _label(plot: pg.PlotWidget, text: str, x: float, y: float, anchor: tuple) -> None:
    item = pg.TextItem(text, anchor=anchor)
    item.setPos(x, y)
    plot.addItem(item)
    plot_theme.follow(item)  # the theme's text colour on the plot's background
