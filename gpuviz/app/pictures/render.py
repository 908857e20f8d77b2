"""Draw a scene without a window: what `gpuviz render` and the notebook show (a picture of one view at a
frame of the animation, with a thread selected, in chosen colours). The caller builds the Scene
(scene/scene.py: scene_at) from a trace loaded with `as_trace` (core/analysis/report.py)."""

from __future__ import annotations

from pathlib import Path

from gpuviz.core.errors import GpuvizError
from gpuviz.scene.scene import Scene


def slide_for(scene: Scene, view: str, theme: str = "dark"):
    """A slide of one view showing a scene (load a trace file with `as_trace` first: its errors come before Qt's)."""
    from gpuviz.app.pictures.picture import qt_app
    from gpuviz.app.pictures.slide import Slide

    qt_app()
    slide = Slide(view, theme)
    slide.state.apply(scene)
    return slide


def render_picture(scene: Scene, view: str, out: str | Path, options=None) -> Path:
    """Draw one view of a scene into a PNG or SVG, with its title, legend and caption."""
    from gpuviz.app.pictures.picture import FORMATS, PictureOptions, write_picture

    if Path(out).suffix.lower() not in FORMATS:
        raise GpuvizError(f"cannot render to {Path(out).name}: use a .png or .svg file name")
    options = options or PictureOptions()
    slide = slide_for(scene, view, options.theme)
    try:
        return write_picture(slide, out, options)
    finally:
        slide.close()


def render_clip(scene: Scene, view: str, out: str | Path, options=None, fps: float = 8, start=None, stop=None) -> Path:
    """Write the animation's frames from `start` to `stop` of one view of a scene as a GIF or MP4."""
    from gpuviz.app.pictures.clip import WRITERS, write_clip
    from gpuviz.app.pictures.picture import PictureOptions
    from gpuviz.core.cursor import frame_range

    if Path(out).suffix.lower() not in WRITERS:
        raise GpuvizError(f"cannot write a clip to {Path(out).name}: use a .gif or .mp4 file name")
    options = options or PictureOptions()
    slide = slide_for(scene, view, options.theme)
    try:
        return write_clip(slide, out, frame_range(slide.state.plan.count, start, stop), options, fps)
    finally:
        slide.close()
