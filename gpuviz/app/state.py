"""The app's shared state: what every view shows and the user chose. Qt-free and evented (psygnal).

Views read it and subscribe to its signals; they never call each other. What several views share
is computed here once, in one place: the frames of the animation (for the grid and the animation
bar), the colours and their legend (for the grid and the legend), the hovered and selected thread.
"""

from __future__ import annotations

from psygnal import Signal

from gpuviz.core.colors import MODES, Coloring, coloring
from gpuviz.core.frames import EMPTY_PLAN, ORDERS, REPLAY, FramePlan, frame_plan
from gpuviz.core.replay import Replay, ThreadStates
from gpuviz.core.trace import Trace


class AppState:
    trace_changed = Signal(object)  # Trace or None
    analysis_changed = Signal(object)  # Trace: its analysis arrived after it was shown
    launches_changed = Signal(object)  # list[Trace]: every launch of the current run
    selection_changed = Signal(int)  # global thread id, -1 for none
    hover_changed = Signal(int)  # global thread id under the mouse, -1 for none
    frames_changed = Signal(object)  # FramePlan: a new trace, order or layer
    frame_changed = Signal(int)
    colour_mode_changed = Signal(str)
    coloring_changed = Signal(object)  # Coloring (codes, lookup table, legend) or None
    order_changed = Signal(str)
    layer_changed = Signal(int)
    entry_changed = Signal(object)  # CatalogEntry or None: the lesson or example picked
    element_changed = Signal(object)  # (array id, element, block or None) or None
    line_changed = Signal(int)  # a source line, 0 for none
    busy_changed = Signal(str)  # what the app is waiting for ("loading 3 launches"), "" when idle
    output_changed = Signal(str)  # what the script printed (all of it so far)
    view_wanted = Signal(str)  # a view to bring to the front (a name of views/table.py): the window raises it
    launch_wanted = Signal(int)  # a launch of the run to show: the run controller loads it
    caption_changed = Signal(str)  # what the views show now, in a sentence (a lesson's evidence), "" for none

    def __init__(self) -> None:
        self.trace: Trace | None = None
        self.launches: list[Trace] = []
        self.selected = -1
        self.hovered = -1
        self.plan: FramePlan = EMPTY_PLAN
        self.frame = 0
        self.colour_mode = MODES[0]
        self.coloring: Coloring | None = None
        self.order = ORDERS[1]
        self.chosen_order = ""  # an order the user picked; otherwise each trace gets its natural one
        self.replay: Replay | None = None
        self._threads_now: tuple[int, ThreadStates] | None = None
        self.output = ""
        self.layer = 0
        self.entry = None
        self.element = None
        self.line = 0
        self.busy = ""
        self.caption = ""
        self.analysis_pending = False  # the trace shown is being analysed; its analysis follows

    # ---- the trace and what follows from it ------------------------------------------------------
    def set_trace(self, trace: Trace | None, launches: list[Trace] | None = None, replay: Replay | None = None,
                  analysis_pending: bool = False) -> None:  # fmt: skip
        """Show a launch (and the run it belongs to); the selection, layer and element start afresh.
        A trace with accesses plays as a replay of its recorded execution; `replay` may come prepared
        (built off the GUI thread), else it is built here. `analysis_pending`: the trace's analysis
        is still being computed elsewhere (set_analysis brings it)."""
        self.trace = trace
        self.analysis_pending = analysis_pending and trace is not None
        has_log = trace is not None and trace.accesses is not None
        self.replay = (replay or Replay(trace)) if has_log else None
        self._threads_now = None
        natural = REPLAY if has_log else ORDERS[1]
        chosen = self.chosen_order if self.chosen_order and (has_log or self.chosen_order != REPLAY) else ""
        self.order = chosen or natural
        self.launches = list(launches) if launches is not None else ([trace] if trace is not None else [])
        self.selected = self.hovered = -1
        self.layer = 0
        self.element = None
        self.line = 0
        self.coloring = coloring(trace, self.colour_mode) if trace is not None else None
        self._plan_frames()
        self.set_caption("")  # a caption speaks of the launch it was written for
        self.launches_changed.emit(self.launches)
        self.trace_changed.emit(trace)
        self.coloring_changed.emit(self.coloring)
        self.selection_changed.emit(-1)
        self._emit_frames()

    def set_analysis(self, trace: Trace, analysis: dict) -> None:
        """The analysis of a trace shown before it was analysed: views that show it redraw."""
        trace.analysis = analysis
        if trace is self.trace:
            self.analysis_pending = False
            self.analysis_changed.emit(trace)

    def set_colour_mode(self, mode: str) -> None:
        if mode != self.colour_mode:
            self.colour_mode = mode
            self.coloring = coloring(self.trace, mode) if self.trace is not None else None
            self.colour_mode_changed.emit(mode)
            self.coloring_changed.emit(self.coloring)

    def set_order(self, order: str) -> None:
        """The user's choice of order is kept (a later trace gets it too); a trace without an access
        log cannot replay, so it plays in logical order meanwhile."""
        self.chosen_order = order
        if order == REPLAY and self.replay is None:
            order = ORDERS[1]
        if order != self.order:
            self.order = order
            self._plan_frames()
            self.order_changed.emit(order)
            self._emit_frames()

    def set_layer(self, layer: int) -> None:
        if layer != self.layer:
            self.layer = layer
            self._plan_frames()
            self.layer_changed.emit(layer)
            self._emit_frames()

    def _plan_frames(self) -> None:
        """Frames for the trace, order and layer; a new plan starts at its last frame (all shown)."""
        self.plan = frame_plan(self.trace, self.order, self.layer) if self.trace is not None else EMPTY_PLAN
        self.frame = max(0, self.plan.count - 1)

    def _emit_frames(self) -> None:
        self.frames_changed.emit(self.plan)
        self.frame_changed.emit(self.frame)

    def thread_states(self) -> ThreadStates | None:
        """In the replay: every thread's state and line at the current frame (computed once a frame)."""
        if self.replay is None or self.order != REPLAY:
            return None
        if self._threads_now is None or self._threads_now[0] != self.frame:
            self._threads_now = (self.frame, self.replay.thread_states(self.frame))
        return self._threads_now[1]

    def set_output(self, text: str) -> None:
        self.output = text
        self.output_changed.emit(text)

    # ---- what the user points at -----------------------------------------------------------------
    def set_frame(self, frame: int) -> None:
        frame = max(0, min(frame, self.plan.count - 1))
        if frame != self.frame:
            self.frame = frame
            self.frame_changed.emit(frame)

    def select(self, gid: int) -> None:
        if gid != self.selected:
            self.selected = gid
            self.selection_changed.emit(gid)

    def hover(self, gid: int) -> None:
        if gid != self.hovered:
            self.hovered = gid
            self.hover_changed.emit(gid)

    def set_entry(self, entry) -> None:
        self.entry = entry
        self.set_caption("")
        self.entry_changed.emit(entry)

    def select_element(self, element) -> None:
        self.element = element
        self.element_changed.emit(element)

    def select_line(self, line: int) -> None:
        if line != self.line:
            self.line = line
            self.line_changed.emit(line)

    def set_caption(self, text: str) -> None:
        if text != self.caption:
            self.caption = text
            self.caption_changed.emit(text)

    def show_view(self, name: str) -> None:
        """Ask for a view to be brought to the front (a lesson pointing at its evidence)."""
        self.view_wanted.emit(name)

    def want_launch(self, index: int) -> None:
        """Ask for another launch of the run; `trace_changed` says when it is shown."""
        self.launch_wanted.emit(index)

    def launch_index(self) -> int:
        """Which launch of the run is shown (-1: none)."""
        return next((i for i, trace in enumerate(self.launches) if trace is self.trace), -1)

    def set_busy(self, what: str) -> None:
        if what != self.busy:
            self.busy = what
            self.busy_changed.emit(what)
