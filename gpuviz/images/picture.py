"""Views of an app state drawn on demand, one image a view, each with its title, words and legend (panel.py),
and a whole picture of a Scene as PNG: what a notebook shows of a trace without Qt."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
from PIL import Image

from gpuviz.core.cursor import frame_range
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import REPLAY
from gpuviz.images.canvas import ViewImage, blank, look, png, wrapped
from gpuviz.images.data import DataPicture
from gpuviz.images.grid import GridPicture
from gpuviz.images.panel import panel
from gpuviz.images.story import StoryPicture
from gpuviz.images.timeline import TimelinePicture
from gpuviz.scene.scene import Scene
from gpuviz.scene.state import AppState

VIEWS = {"grid": GridPicture, "data": DataPicture, "timeline": TimelinePicture, "story": StoryPicture}


def check_view(view: str) -> str:
    if view not in VIEWS:
        raise GpuvizError(f"unknown view {view!r} for a picture without Qt; views: {', '.join(VIEWS)}")
    return view


class Pictures:
    """The views of one app state, each drawn only when asked (a view not on screen costs nothing)."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self._drawers: dict[str, object] = {}

    def draw(self, view: str, box: tuple[int, int], theme: str = "dark") -> ViewImage:
        """One view of the state at its cursor, in a box of (width, height) pixels."""
        if view not in self._drawers:
            self._drawers[view] = VIEWS[check_view(view)]()
        colours = look(theme)
        if self.state.trace is None:
            return ViewImage(blank(box, colours.background), "no trace")
        return self._drawers[view].draw(self.state, box, colours)

    def panel(self, view: str, size: tuple[int, int], theme: str = "dark", text: int = 13,
              lead: tuple[str, ...] = ()) -> ViewImage:  # fmt: skip
        """One view with its title, words and legend around it, in (width, height) pixels: a picture that
        reads alone; a click at one of its pixels picks what the view has there."""
        return panel(lambda box: self.draw(view, box, theme), size, look(theme), text, lead)

    def data(self) -> DataPicture:
        """The data view's drawer (its colour mode and array are the widget's choices)."""
        if "data" not in self._drawers:
            self._drawers["data"] = DataPicture()
        return self._drawers["data"]

    def frame_words(self) -> str:
        """What the cursor shows, in a sentence: the replay's event, else how far the animation is."""
        state = self.state
        if state.trace is None:
            return ""
        if state.order == REPLAY and state.replay is not None:
            return state.replay.caption(state.frame)
        return f"frame {state.frame + 1} of {state.plan.count} ({state.order} order)"


def picture_png(scene: Scene, view: str = "grid", size: tuple[int, int] = (960, 540), scale: float = 1.0,
                theme: str = "dark") -> bytes:  # fmt: skip
    """One view of a scene with its title, what the frame shows and a legend, as PNG bytes."""
    return png(picture_rgb(scene, view, size, scale, theme))


def clip_gif(scene: Scene, view: str = "grid", size: tuple[int, int] = (640, 360), theme: str = "dark",
             fps: float = 8, start=None, stop=None) -> bytes:  # fmt: skip
    """The animation's frames from `start` to `stop` (indices or fractions) as GIF bytes."""
    check_view(view)
    state = AppState()
    state.apply(scene)
    frames = [Image.fromarray(picture_rgb(replace(scene, frame=k), view, size, 1.0, theme, state))
              for k in frame_range(state.plan.count, start, stop)]  # fmt: skip
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=round(1000 / fps), loop=0)
    return buffer.getvalue()


def picture_rgb(scene: Scene, view: str, size: tuple[int, int], scale: float, theme: str,
                state: AppState | None = None) -> np.ndarray:  # fmt: skip
    """The picture's pixels; `state` may come with the scene's trace applied already (a clip's frames)."""
    check_view(view)
    state = state or AppState()
    state.apply(scene)
    size = (int(size[0] * scale), int(size[1] * scale))
    pictures = Pictures(state)
    trace = scene.trace
    text = max(9, int(13 * scale))
    words = wrapped(scene.caption or pictures.frame_words(), size[0] - 12, text)[:2]
    lead = (f"{trace.kernel}: {view}" if trace is not None else view, *words, *[""] * (2 - len(words)))
    return pictures.panel(view, size, theme, text, lead).rgb  # two lines of words always: clips keep still
