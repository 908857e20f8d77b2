"""Views of an app state drawn on demand, one image a view, and a whole picture of a Scene (title, what the
frame shows, the view, its legend) as PNG: what a notebook shows of a trace without Qt."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
from PIL import Image

from gpuviz.core.cursor import frame_range
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import REPLAY
from gpuviz.images.canvas import Look, ViewImage, blank, font, look, png, wrapped, write_at
from gpuviz.images.data import DataPicture
from gpuviz.images.grid import GridPicture
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
    width, height = int(size[0] * scale), int(size[1] * scale)
    colours = look(theme)
    text_size = max(9, int(14 * scale))
    line = int(text_size * 1.35)
    trace = scene.trace
    pictures = Pictures(state)
    words = scene.caption or pictures.frame_words()
    title = f"{trace.kernel}: {view}" if trace is not None else view
    lines = [(title, colours.text)] + [(w, colours.muted) for w in wrapped(words, width - 16, text_size)[:2]]
    top = 6 + line * len(lines) + 4
    legend_rows = 1
    box = (width - 16, max(1, height - top - line * legend_rows - 10))
    image = pictures.draw(view, box, theme)
    rgb = blank((width, height), colours.background)
    rgb[top : top + box[1], 8 : 8 + box[0]] = image.rgb[: box[1], : box[0]]
    texts = [(text, colour, (8, 6 + i * line)) for i, (text, colour) in enumerate(lines)]
    texts += _legend(rgb, image.legend or [], height - line - 4, text_size, colours)
    write_at(rgb, texts, text_size)
    return rgb


def _legend(rgb: np.ndarray, legend: list, y: int, size: int, colours: Look) -> list:
    """Swatches along one line at the bottom (as many as fit); the texts to write beside them."""
    x, texts = 8, []
    for colour, words in legend:
        room = size + 6 + int(font(size).getlength(words)) + 16
        if x + room > rgb.shape[1]:
            break
        rgb[y + 2 : y + 2 + size, x : x + size] = colour
        texts.append((words, colours.muted, (x + size + 6, y)))
        x += room
    return texts
