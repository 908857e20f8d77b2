"""Clips of a launch: the animation's frames drawn as slides, written as a GIF (imageio with Pillow) or
an MP4 (imageio with imageio-ffmpeg, which carries its own ffmpeg).

Frame k of a clip is frame `first + k` of the app state's animation (state.plan), drawn exactly as
`gpuviz render --at first+k` draws it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from gpuviz.app.pictures.picture import PictureOptions, image_array
from gpuviz.app.pictures.slide import Slide
from gpuviz.core.errors import GpuvizError
from gpuviz.core.files import replaced
from gpuviz.core.numbers import number

Progress = Callable[[int, int], bool]  # (frames done, frames in all) -> go on?


def clip_frames(slide: Slide, frames: range, options: PictureOptions) -> Iterator[np.ndarray]:
    """Each frame of the range drawn as an RGB array of options.pixels."""
    for frame in frames:
        slide.state.set_frame(frame)
        yield image_array(slide.image(options))


def _gif_writer(path: Path, fps: float, options: PictureOptions):
    """Pillow writes a GIF whole at the end (as imageio's plugin does); the file is opened here, so a place
    that takes no files fails at once, and a failure is raised once (never again when it is collected)."""
    from PIL import Image

    stream, frames = open(path, "xb"), []  # noqa: SIM115 (closed by the writer's close)

    class GifWriter:
        @staticmethod
        def close() -> None:
            try:
                if frames:
                    frames[0].save(stream, format="GIF", save_all=True, append_images=frames[1:],
                                   duration=round(1000 / fps), loop=0)  # fmt: skip
            finally:
                frames.clear()
                stream.close()

    return GifWriter(), lambda frame: frames.append(Image.fromarray(frame))


def _mp4_writer(path: Path, fps: float, options: PictureOptions):
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401  (the ffmpeg it carries writes the file)
    except ImportError:
        raise GpuvizError("MP4 clips need imageio-ffmpeg: pip install 'gpuviz[mp4]' (or write a .gif)") from None
    width, height = options.pixels
    if width % 2 or height % 2:
        raise GpuvizError(f"an MP4 needs an even width and height; this clip is {width}x{height} pixels")
    writer = imageio.get_writer(path, format="FFMPEG", fps=fps, codec="libx264", pixelformat="yuv420p",
                                macro_block_size=2, quality=7, ffmpeg_log_level="error")  # fmt: skip
    return writer, writer.append_data


WRITERS = {".gif": _gif_writer, ".mp4": _mp4_writer}


def write_clip(slide: Slide, path: str | Path, frames: range, options: PictureOptions, fps: float = 8,
               progress: Progress | None = None) -> Path | None:  # fmt: skip
    """Write the frames as a clip; None when `progress` said stop (nothing is left behind)."""
    path = Path(path)
    make_writer = WRITERS.get(path.suffix.lower())
    if make_writer is None:
        raise GpuvizError(f"cannot write a clip to {path.name}: use a .gif or .mp4 file name")
    if not len(frames):
        raise GpuvizError("the launch has no frames to make a clip of")
    if not 0.1 <= fps <= 60:
        raise GpuvizError(f"--fps {number(fps)}: use 0.1 to 60 frames a second")
    try:
        with replaced(path, "clip", synced=False) as temporary:  # files.py: whole or nothing, one line
            _write_frames(make_writer, temporary, slide, frames, options, fps, progress)
    except _Stopped:
        return None
    return path


class _Stopped(Exception):
    """`progress` said stop: the temporary goes, the target stays as it was."""


def _write_frames(make_writer, temporary: Path, slide: Slide, frames: range, options: PictureOptions, fps: float,
                  progress: Progress | None) -> None:  # fmt: skip
    try:
        writer, append = make_writer(temporary, fps, options)
    except RuntimeError as exc:  # imageio's ffmpeg says a failed start so
        raise OSError(str(exc)) from None
    try:
        for done, frame in enumerate(clip_frames(slide, frames, options)):
            append(frame)
            if progress is not None and not progress(done + 1, len(frames)):
                raise _Stopped
    except (RuntimeError, BrokenPipeError) as exc:  # an ffmpeg that died mid-clip (its disk is full)
        raise OSError(str(exc)) from None
    finally:
        try:
            writer.close()
        except RuntimeError as exc:
            raise OSError(str(exc)) from None
