"""The replay widget for Jupyter, Colab, VS Code and marimo (anywidget, the `notebook` extra): the views of a
trace at one time cursor, with play and step buttons, the source at the current line, and clicks that select
in every view. The browser only shows pictures and sends what the user did; the Python side (ReplayModel)
computes every picture, so there is no second implementation of the replay or its colours in JavaScript."""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

from gpuviz.core.errors import GpuvizError
from gpuviz.core.trace.model import Trace
from gpuviz.images.picture import VIEWS
from gpuviz.scene.scene import Scene
from gpuviz.widget.replay import BOX, ReplayModel

HERE = Path(__file__).parent


class ReplayWidget(anywidget.AnyWidget):
    _esm = HERE / "replay.js"
    _css = HERE / "replay.css"

    frame = traitlets.Int(0).tag(sync=True)
    frames = traitlets.Int(1).tag(sync=True)
    steps = traitlets.List(traitlets.Unicode()).tag(sync=True)
    all_views = traitlets.List(traitlets.Unicode(), list(VIEWS)).tag(sync=True)
    views = traitlets.List(traitlets.Unicode(), ["grid", "data"]).tag(sync=True)  # the views on screen
    images = traitlets.Dict().tag(sync=True)  # view -> PNG data URL, only for the views on screen
    caption = traitlets.Unicode("").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    source = traitlets.List(traitlets.Unicode()).tag(sync=True)
    line = traitlets.Int(0).tag(sync=True)
    lines_busy = traitlets.Dict().tag(sync=True)
    selection = traitlets.Unicode("").tag(sync=True)
    hover_text = traitlets.Unicode("").tag(sync=True)
    said = traitlets.Unicode("").tag(sync=True)  # what went wrong with the last request, in one line
    data_modes = traitlets.List(traitlets.Unicode()).tag(sync=True)
    data_mode = traitlets.Unicode("").tag(sync=True)  # what the data view's colours say
    arrays = traitlets.List(traitlets.Unicode()).tag(sync=True)
    data_array = traitlets.Unicode("").tag(sync=True)  # the data view's array (or the cursor's)

    def __init__(self, trace: Trace, views=("grid", "data"), scene: Scene | None = None, box=BOX,
                 theme: str = "dark") -> None:  # fmt: skip
        unknown = [v for v in views if v not in VIEWS]
        if unknown:
            raise GpuvizError(f"unknown view {unknown[0]!r}; views: {', '.join(VIEWS)}")
        self.model = ReplayModel(trace, scene, theme, box)
        super().__init__(views=list(views), frames=self.model.frames, steps=list(self.model.steps),
                         title=f"{trace.kernel}: {trace.n_threads:,} threads", data_modes=self.model.data_modes(),
                         data_mode=self.model.data_modes()[0], arrays=self.model.arrays(),
                         data_array=self.model.arrays()[0])  # fmt: skip
        self.frame = self.model.state.frame
        self._refresh()
        self.on_msg(self._on_message)

    @traitlets.observe("frame")
    def _on_frame(self, change) -> None:
        if hasattr(self, "model") and change["new"] != self.model.state.frame:
            self.model.set_frame(change["new"])
            self._refresh()

    @traitlets.observe("views")
    def _on_views(self, _change) -> None:
        if hasattr(self, "model"):
            self._refresh()

    @traitlets.observe("data_mode", "data_array")
    def _on_data_choice(self, change) -> None:
        """The data view's colours or array, picked in the browser (or set from Python)."""
        if not hasattr(self, "model"):
            return
        try:
            if change["name"] == "data_mode":
                self.model.set_data_mode(change["new"])
            else:
                self.model.set_data_array(change["new"])
        except GpuvizError as exc:
            self.said = f"error: {exc}"
            return
        self._refresh()

    def _on_message(self, _widget, content: dict, _buffers) -> None:
        """What the user did in the browser: a step, a click or a hover over a view."""
        try:
            kind = content.get("kind")
            if kind == "step":
                self.model.step(str(content["unit"]), int(content.get("direction", 1)))
            elif kind == "click":
                self.said = self.model.click(str(content["view"]), float(content["x"]), float(content["y"]))
            elif kind == "hover":
                self.hover_text = self.model.hover(str(content["view"]), float(content["x"]), float(content["y"]))
                return
            else:
                raise GpuvizError(f"unknown request {kind!r}; requests: step, click, hover")
        except (GpuvizError, KeyError, ValueError) as exc:
            self.said = f"error: {exc}"
            return
        self._refresh()

    def _refresh(self) -> None:
        """Everything the browser shows, at the cursor: one picture per view on screen."""
        model = self.model
        with self.hold_sync():
            self.frame = model.state.frame
            self.images = model.images(self.views)
            self.caption = model.caption()
            self.source = model.source()
            self.line = model.line()
            self.lines_busy = model.lines_busy()
            self.selection = model.selection()
