"""The app's shared state: what every view shows and the user chose. Qt-free and evented (psygnal).

Views read it and subscribe to its signals; they never call each other. What several views share
is computed here once, in one place: the frames of the animation (for the grid and the animation
bar), the colours and their legend (for the grid and the legend), the hovered and selected thread.
"""

from __future__ import annotations

import numpy as np
from psygnal import Signal

from gpuviz.core.colors import BY_ELEMENT, DEFAULT_PALETTE, MODES, Coloring, coloring, palette
from gpuviz.core.frames import EMPTY_PLAN, ORDERS, REPLAY, FramePlan, frame_plan
from gpuviz.core.marks import Mark
from gpuviz.core.replay import Replay, ThreadStates
from gpuviz.core.streams import StreamTimeline, timeline_of
from gpuviz.core.trace.model import Trace
from gpuviz.scene.scene import Scene, natural_order


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
    palette_changed = Signal(str)  # the categorical palette (a name of core/colors.py's PALETTES): a preference
    order_changed = Signal(str)
    layer_changed = Signal(int)
    entry_changed = Signal(object)  # CatalogEntry or None: the lesson or example picked
    element_changed = Signal(object)  # (array id, element, block or None) or None
    line_changed = Signal(int)  # a source line, 0 for none
    busy_changed = Signal(str)  # what the app is waiting for ("loading 3 launches"), "" when idle
    output_changed = Signal(str)  # what the script printed (all of it so far)
    view_requested = Signal(str)  # a view to bring to the front (a name of views/table.py): the window raises it
    launch_requested = Signal(int)  # a launch of the run to show: the run controller loads it
    launch_refused = Signal(int, str)  # a launch asked for that cannot be shown, and why
    caption_changed = Signal(str)  # what the views show now, in a sentence (a lesson's evidence), "" for none
    marks_changed = Signal(object)  # tuple[Mark, ...]: the threads and elements outlined (a lesson's evidence)
    partner_changed = Signal(int)  # the launch beside the shown one in the Compare view (-1: the first other)
    streams_changed = Signal(object)  # StreamTimeline: the whole run's, once its script has ended
    stopped_changed = Signal(str)  # why the run ended with nothing to show (Scene.stopped), "" for none

    def __init__(self) -> None:
        self.trace: Trace | None = None
        self.launches: list[Trace] = []
        self.selected = -1
        self.hovered = -1
        self.plan: FramePlan = EMPTY_PLAN
        self.frame = 0
        self.colour_mode = MODES[0]
        self.coloring: Coloring | None = None
        self.palette = DEFAULT_PALETTE  # how blocks, warps and SMs are told apart: the viewer's, not the scene's
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
        self.stopped = ""
        self.marks: tuple[Mark, ...] = ()
        self.partner = -1  # the launch (index in launches) beside the shown one in the Compare view
        self.colour_span: tuple[float, float] | None = None  # a ramp's range shared with another launch
        self.front = ""  # the view last asked to the front
        self.run = 0  # the run the launches shown came from (0: a file, or none)
        self.runs_started = 0
        self._run_lessons: dict[int, object] = {}  # each run's lesson (CatalogEntry), or None for a script
        self.analysis_pending = False  # the trace shown is being analysed; its analysis follows
        self._streams: tuple[int, StreamTimeline] | None = None  # (run, its whole stream timeline)

    # ---- the scene: everything the views show, applied in one place ---------------------------------
    def scene(self) -> Scene:
        """The scene on screen now."""
        shown = self.trace is not None
        return Scene(self.trace, tuple(self.launches), self.order if shown else "", self.layer,
                     self.frame if shown else None, self.selected, self.element, self.line, self.colour_mode,
                     self.front, self.caption, self.run, self.marks, self.partner, self.stopped)  # fmt: skip

    def apply(self, scene: Scene, replay: Replay | None = None, analysis_pending: bool = False) -> None:
        """Show `scene`: every field is set here, nothing of the scene before survives, and each signal is
        emitted once, for the fields that changed (a new trace counts as a change of everything that
        follows from it). `replay` may come prepared (built off the GUI thread); `analysis_pending`: the
        trace's analysis is still being computed elsewhere (set_analysis brings it)."""
        trace = scene.trace
        new_trace = trace is not self.trace
        if new_trace or replay is not None:
            self.analysis_pending = analysis_pending and trace is not None
            has_log = trace is not None and trace.accesses is not None
            self.replay = (replay or Replay(trace)) if has_log else None
            self._threads_now = None
        launches = list(scene.launches) or ([trace] if trace is not None else [])
        order = natural_order(trace, scene.order)
        changed = {
            "launches": len(launches) != len(self.launches) or any(a is not b for a, b in zip(launches, self.launches)),
            "trace": new_trace,
            "colour": scene.colour != self.colour_mode,
            "order": order != self.order,
            "layer": scene.layer != self.layer,
        }
        self.trace, self.launches, self.colour_mode = trace, launches, scene.colour
        self.order, self.layer = order, scene.layer
        recolour = new_trace or changed["colour"] or (scene.colour in BY_ELEMENT and scene.element != self.element)
        if recolour:
            self.coloring = self._colours(trace, self.colour_mode, scene.element)
        if new_trace or changed["order"] or changed["layer"]:
            self.plan = frame_plan(trace, order, scene.layer) if trace is not None else EMPTY_PLAN
        last = max(0, self.plan.count - 1)
        frame = last if scene.frame is None else max(0, min(scene.frame, last))
        replanned = new_trace or changed["order"] or changed["layer"]
        changed["frame"] = replanned or frame != self.frame
        changed["selected"] = new_trace or scene.selected != self.selected
        changed["element"] = new_trace or scene.element != self.element
        changed["line"] = scene.line != self.line
        self.frame, self.selected, self.element, self.line = frame, scene.selected, scene.element, scene.line
        self.run = scene.run
        self.hovered = -1 if new_trace else self.hovered
        changed["recoloured"] = recolour
        changed["marks"] = scene.marks != self.marks
        self.marks = scene.marks
        changed["partner"] = scene.partner != self.partner
        self.partner = scene.partner
        self._emit_scene(changed, replanned, scene)

    def _emit_scene(self, changed: dict[str, bool], replanned: bool, scene: Scene) -> None:
        if changed["launches"]:
            self.launches_changed.emit(self.launches)
        if changed["trace"]:
            self.trace_changed.emit(self.trace)
        if changed["colour"]:
            self.colour_mode_changed.emit(self.colour_mode)
        if changed["recoloured"]:
            self.coloring_changed.emit(self.coloring)
        if changed["order"]:
            self.order_changed.emit(self.order)
        if changed["layer"]:
            self.layer_changed.emit(self.layer)
        if replanned:
            self.frames_changed.emit(self.plan)
        if changed["frame"]:
            self.frame_changed.emit(self.frame)
        if changed["selected"]:
            self.selection_changed.emit(self.selected)
        if changed["element"]:
            self.element_changed.emit(self.element)
        if changed["line"]:
            self.line_changed.emit(self.line)
        if changed["marks"]:
            self.marks_changed.emit(self.marks)
        if changed["partner"]:
            self.partner_changed.emit(self.partner)
        self.set_caption(scene.caption)
        if scene.stopped != self.stopped:
            self.stopped = scene.stopped
            self.stopped_changed.emit(scene.stopped)
        self.front = scene.view or self.front
        if scene.view:
            self.view_requested.emit(scene.view)

    def set_trace(self, trace: Trace | None, launches: list[Trace] | None = None, replay: Replay | None = None,
                  analysis_pending: bool = False, run: int = 0) -> None:  # fmt: skip
        """Show a launch (and the run it belongs to, numbered by begin_run; 0 for a file): a fresh scene of it
        in the colours and the order the user chose, the cursor at the end (everything shown)."""
        scene = Scene(trace, tuple(launches or ()), self.chosen_order, colour=self.colour_mode, run=run)
        self.apply(scene, replay, analysis_pending)

    def begin_run(self) -> int:
        """A run starts for the lesson (or script) picked now: its number, which its launches carry."""
        self.runs_started += 1
        self._run_lessons[self.runs_started] = self.entry
        return self.runs_started

    def set_streams(self, run: int, timeline: StreamTimeline) -> None:
        """The stream timeline of a whole run (the copies after its last launch too), once it has ended."""
        self._streams = (run, timeline)
        self.streams_changed.emit(timeline)

    def stream_timeline(self) -> StreamTimeline | None:
        """The run's whole timeline when the launch shown is of that run; else what the launch's trace carries
        (up to the end of that launch)."""
        if self._streams is not None and self.run and self._streams[0] == self.run:
            return self._streams[1]
        return timeline_of(self.trace)

    def lesson_of_run(self, run: int):
        """The lesson a run was started for (None: a script of the user's, a file, or no such run)."""
        return self._run_lessons.get(run)

    def set_analysis(self, trace: Trace, analysis: dict) -> None:
        """The analysis of a trace shown before it was analysed: views that show it redraw."""
        trace.analysis = analysis
        if trace is self.trace:
            self.analysis_pending = False
            self.analysis_changed.emit(trace)

    def set_colour_mode(self, mode: str) -> None:
        if mode != self.colour_mode:
            self.colour_mode = mode
            self.coloring = self._colours(self.trace, mode, self.element)
            self.colour_mode_changed.emit(mode)
            self.coloring_changed.emit(self.coloring)

    def set_palette(self, name: str) -> None:
        """The categorical palette for the grid, the data view, the timeline and their legends."""
        palette(name)  # an unknown name raises here, before anything changes
        if name != self.palette:
            self.palette = name
            self.coloring = self._colours(self.trace, self.colour_mode, self.element)
            self.palette_changed.emit(name)
            self.coloring_changed.emit(self.coloring)

    def palette_colours(self) -> np.ndarray:
        """The palette's colours, (n, 3) uint8."""
        return palette(self.palette)

    def _colours(self, trace: Trace | None, mode: str, element) -> Coloring | None:
        """A mode's colours in the palette chosen (None without a trace)."""
        return coloring(trace, mode, element, self.palette, self.colour_span) if trace is not None else None

    def set_colour_span(self, span: tuple[float, float] | None) -> None:
        """The range a ramp of colours covers (two launches on one scale), None for the launch's own; set
        before the trace it applies to."""
        self.colour_span = span

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
        """A lesson or example picked (None: the user's own script): it starts on a fresh scene, with nothing
        of the last one on screen (no trace, selection, caption)."""
        self.entry = entry
        self.apply(Scene())
        self.entry_changed.emit(entry)

    def select_element(self, element) -> None:
        self.element = element
        self.element_changed.emit(element)
        if self.colour_mode in BY_ELEMENT and self.trace is not None:  # the colours are of the element's readers
            self.coloring = self._colours(self.trace, self.colour_mode, element)
            self.coloring_changed.emit(self.coloring)

    def select_line(self, line: int) -> None:
        if line != self.line:
            self.line = line
            self.line_changed.emit(line)

    def set_partner(self, index: int) -> None:
        """The launch to show beside this one in the Compare view (-1: the first other one)."""
        if index != self.partner:
            self.partner = index
            self.partner_changed.emit(index)

    def set_caption(self, text: str) -> None:
        if text != self.caption:
            self.caption = text
            self.caption_changed.emit(text)

    def request_view(self, name: str) -> None:
        """Ask for a view to be brought to the front (a lesson pointing at its evidence)."""
        self.front = name
        self.view_requested.emit(name)

    def request_launch(self, index: int) -> None:
        """Ask for another launch of the run; `trace_changed` says when it is shown."""
        self.launch_requested.emit(index)

    def refuse_launch(self, index: int, why: str) -> None:
        """A launch asked for cannot be shown (its file is gone, it failed to load): whoever asked says so."""
        self.launch_refused.emit(index, why)

    def launch_index(self) -> int:
        """Which launch of the run is shown (-1: none)."""
        return next((i for i, trace in enumerate(self.launches) if trace is self.trace), -1)

    def set_busy(self, what: str) -> None:
        if what != self.busy:
            self.busy = what
            self.busy_changed.emit(what)
