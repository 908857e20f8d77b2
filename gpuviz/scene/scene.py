"""The Scene: one frozen value for everything the views show. Qt-free.

A lesson's evidence, `gpuviz render`, a copied slide and the notebook each build a Scene; the app state
applies it in one place (`AppState.apply`), so nothing of the scene before survives unless the new one
says so. `AppState.scene()` gives the one on screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuviz.core.colors import MODES
from gpuviz.core.cursor import frame_at, parse_element
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import ORDERS, REPLAY, frame_plan
from gpuviz.core.marks import Mark
from gpuviz.core.replay import Replay
from gpuviz.core.trace.model import Trace

Element = tuple[int, int, "int | None"]  # (array id, C-order element, block for shared arrays, else None)


@dataclass(frozen=True)
class Scene:
    """What the views show. Empty fields mean none: no trace, no selection, no caption."""

    trace: Trace | None = None
    launches: tuple[Trace, ...] = ()  # every launch of the run the trace belongs to (the trace alone if empty)
    order: str = ""  # an animation order (core/frames.py ORDERS); "" for the trace's natural one
    layer: int = 0  # the grid's z layer
    frame: int | None = None  # the animation's cursor; None for the plan's last frame (everything shown)
    selected: int = -1  # a global thread id, -1 for none
    element: Element | None = None
    line: int = 0  # a source line, 0 for none
    colour: str = MODES[0]  # the grid's colour mode (core/colors.py MODES)
    view: str = ""  # the view in front (a name of app/views/table.py), "" to leave the front as it is
    caption: str = ""  # what the views show now, in a sentence
    run: int = 0  # the run the launches came from (AppState.begin_run numbers them); 0: a file, or none
    marks: tuple[Mark, ...] = ()  # threads and elements outlined, each with its call-out (core/marks.py)
    partner: int = -1  # the launch (in `launches`) beside the trace in the Compare view; -1: the first other one
    stopped: str = ""  # why the run ended with nothing to show (its error), "" when it did not

    def __post_init__(self) -> None:
        if self.colour not in MODES:
            raise GpuvizError(f"unknown colours {self.colour!r}; colour by: {', '.join(MODES)}")
        if self.order and self.order not in ORDERS:
            raise GpuvizError(f"unknown order {self.order!r}; orders: {', '.join(ORDERS)}")
        if self.partner >= 0:
            check_partner(self.partner, self.trace, self.launches)
        if self.trace is not None and not -1 <= self.selected < self.trace.n_threads:
            raise GpuvizError(f"--select {self.selected}: this launch has threads 0 to {self.trace.n_threads - 1}")


def check_partner(partner: int, trace: Trace | None, launches: tuple[Trace, ...]) -> None:
    """A partner for the Compare view is another launch of the run: one line saying which there are."""
    if not 0 <= partner < len(launches):
        have = f"launches 0 to {len(launches) - 1}" if launches else "no launches"
        raise GpuvizError(f"compare with launch {partner}: the run has {have}")
    if launches[partner] is trace:
        raise GpuvizError(f"compare with launch {partner}: that is the launch shown; name another one")


def natural_order(trace: Trace | None, wanted: str = "") -> str:
    """The order a trace plays in: the one wanted where it can play so, else the replay where the trace
    has its accesses, else logical order."""
    has_log = trace is not None and trace.accesses is not None
    if wanted and (has_log or wanted != REPLAY):
        return wanted
    return REPLAY if has_log else ORDERS[1]


def scene_at(trace: Trace, *, at: str | int | float | None = None, select: int = -1, colour: str = MODES[0],
             order: str = ORDERS[0], element: str | None = None, view: str = "",
             replay: Replay | None = None) -> Scene:  # fmt: skip
    """A scene of one launch as the command line and the notebook say it: a cursor (`at`: a frame, a
    fraction of the run or `t=TIME`), a thread, colours, an order and an element (`array[0]`).
    `replay` may come prepared; one is built only to place `t=TIME` on the replay's times."""
    Scene(trace, colour=colour, order=order, selected=select)  # the fields' own checks, before any work
    order = natural_order(trace, order)
    timed = order == REPLAY and str(at).strip().startswith("t=")
    if timed and replay is None:
        replay = Replay(trace)
    count = frame_plan(trace, order, 0).count
    frame = frame_at(at, count, times=replay.times if timed else None)
    chosen = None
    if element is not None:
        aid, index = parse_element(element, trace.meta.get("arrays", []))
        chosen = (aid, index, None)
    return Scene(trace, (trace,), order, 0, frame, select, chosen, 0, colour, view, "")
