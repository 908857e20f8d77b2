"""The replay widget's Python side, without anywidget or Qt: one app state (a Scene of a trace), its time
cursor, the steps it takes (event, barrier, wave; frame where the trace has no access log), clicks that
select a thread or an element in every view, and one picture per visible view, drawn when asked."""

from __future__ import annotations

import base64

import numpy as np

from gpuviz.core.data_codes import MODES
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import REPLAY
from gpuviz.core.marks import element_name, thread_name
from gpuviz.core.replay import AT_BARRIER, RUNNING
from gpuviz.core.trace.model import Trace
from gpuviz.images.canvas import ViewImage, png
from gpuviz.images.picture import VIEWS, Pictures, check_view
from gpuviz.scene.scene import Scene, scene_at
from gpuviz.scene.state import AppState

REPLAY_STEPS = ("event", "barrier", "wave")
BOX = (400, 380)  # pixels of one view's picture: its title, words, drawing and legend (three fit 1280 pixels)
FOLLOW = "the cursor's"  # the data view's array: the one the cursor's last write was to


class ReplayModel:
    """A trace's views at one cursor. Every change goes through the app state; `pictures` draws the views."""

    def __init__(self, trace: Trace, scene: Scene | None = None, theme: str = "dark", box=BOX) -> None:
        self.state = AppState()
        self.state.apply(scene if scene is not None else scene_at(trace))
        self.pictures = Pictures(self.state)
        self.theme, self.box = theme, tuple(box)

    @property
    def frames(self) -> int:
        return self.state.plan.count

    @property
    def steps(self) -> tuple[str, ...]:
        return REPLAY_STEPS if self.replaying else ("frame",)

    @property
    def replaying(self) -> bool:
        return self.state.order == REPLAY and self.state.replay is not None

    def set_frame(self, frame: int) -> int:
        self.state.set_frame(int(frame))
        return self.state.frame

    def step(self, unit: str, direction: int = 1) -> int:
        """Move the cursor one `unit` forward (1) or back (-1); "barrier" forward is "advance to the next
        barrier": the cursor stops where the next barrier releases the threads."""
        if unit not in self.steps:
            raise GpuvizError(f"unknown step {unit!r}; steps for this trace: {', '.join(self.steps)}")
        if unit == "frame":
            return self.set_frame(self.state.frame + direction)
        return self.set_frame(self.state.replay.next_stop(self.state.frame, unit, direction))

    def click(self, view: str, x: float, y: float) -> str:
        """A click at pixel (x, y) of a view's picture: selects the thread or element there (or moves the
        cursor to a story's row); what it picked, in words ("" for nothing)."""
        picked = self.picture(check_view(view)).pick(x, y)
        if picked is None:
            return ""
        kind, what = picked
        if kind == "thread":
            self.state.select(int(what))
            return thread_name(self.state.trace, int(what))
        if kind == "element":
            self.state.select_element(tuple(what))
            writer = self._last_writer(what)
            if writer >= 0:
                self.state.select(writer)
            return element_name(self.state.trace, tuple(what))
        position, thread = what
        self.set_frame(position)
        self.state.select(thread)
        return f"event {position:,}"

    def hover(self, view: str, x: float, y: float) -> str:
        return self.picture(check_view(view)).hover(x, y)

    def picture(self, view: str) -> ViewImage:
        """A view as the widget shows it: drawn at the cursor with its title, words and legend."""
        return self.pictures.panel(view, self.box, self.theme)

    def data_modes(self) -> list[str]:
        return list(MODES)

    def set_data_mode(self, mode: str) -> None:
        """What the data view's colours say: the last writer's block, warp or thread, or the times read."""
        self.pictures.data().set_mode(mode)

    def arrays(self) -> list[str]:
        """The choices of the data view's array: the cursor's (the one it last wrote), then each by name."""
        return [FOLLOW, *self.state.trace.array_names()]

    def set_data_array(self, name: str) -> None:
        names = self.arrays()
        if name not in names:
            raise GpuvizError(f"unknown array {name!r}; arrays: {', '.join(names)}")
        chosen = None if name == FOLLOW else names.index(name) - 1
        self.pictures.data().array = chosen
        element = self.state.element
        if chosen is not None and element is not None and element[0] != chosen:  # it would keep its array shown
            self.state.select_element(None)

    def _last_writer(self, element) -> int:
        """The thread that last wrote an element (-1: none), so that a click on data selects in the grid too."""
        acc = self.state.trace.accesses
        rows = np.flatnonzero((acc["array"] == element[0]) & (acc["index"] == element[1]) & (acc["kind"] != 0))
        return int(acc["thread"][rows[-1]]) if len(rows) else -1

    def images(self, views) -> dict[str, str]:
        """PNG data URLs of the views asked for (those on screen), each drawn at the cursor."""
        return {view: "data:image/png;base64," + base64.b64encode(self.png(view)).decode() for view in views
                if view in VIEWS}  # fmt: skip

    def png(self, view: str) -> bytes:
        return png(self.picture(view).rgb)

    def caption(self) -> str:
        return self.state.caption or self.pictures.frame_words()

    def source(self) -> list[str]:
        return self.state.trace.meta.get("source", "").splitlines()

    def line(self) -> int:
        """The source line at the cursor: the selected thread's latest, else the last event's (0: none)."""
        now = self.state.thread_states()
        if now is None:
            return self.state.line
        if self.state.selected >= 0 and now.line[self.state.selected] > 0:
            return int(now.line[self.state.selected])
        k = self.state.frame
        return int(self.state.trace.accesses["line"][k - 1]) if k > 0 else 0

    def lines_busy(self) -> dict[str, int]:
        """Per source line, the threads running or waiting there at the cursor (the replay)."""
        now = self.state.thread_states()
        if now is None:
            return {}
        active = ((now.state == RUNNING) | (now.state == AT_BARRIER)) & (now.line > 0)
        lines, counts = np.unique(now.line[active], return_counts=True)
        return {str(int(line)): int(count) for line, count in zip(lines, counts)}

    def selection(self) -> str:
        """The selected thread and element, in words."""
        trace, parts = self.state.trace, []
        if self.state.selected >= 0:
            parts.append(thread_name(trace, self.state.selected))
        if self.state.element is not None:
            parts.append(element_name(trace, self.state.element))
        return "; ".join(parts)
