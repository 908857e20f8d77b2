"""Pictures for slides and clips of a run: size x scale, the legend, the caption, frames of the animation."""

import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")
pytest.importorskip("imageio", reason="clips and these checks read pictures with imageio")

import imageio.v3 as iio
from numpy.lib.stride_tricks import sliding_window_view

import gpuviz
from gpuviz.app.pictures import render as render_module
from gpuviz.app.pictures.clip import clip_frames, write_clip
from gpuviz.app.pictures.picture import THEMES, PictureOptions, image_array
from gpuviz.app.views.table import PICTURE_VIEWS
from gpuviz.cli import main
from gpuviz.core.analysis.report import as_trace
from gpuviz.core.cursor import frame_range
from gpuviz.scene.scene import scene_at

HISTOGRAM = """
from numba import cuda

@cuda.jit
def histogram_racy(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1
"""


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory):
    data = np.arange(512, dtype=np.int32)
    trace = gpuviz.trace(HISTOGRAM, backend="sim", sms=2)[4, 128](data, np.zeros(8, np.int32))
    return trace.save(tmp_path_factory.mktemp("trace") / "histogram.npz")


def slide_for(trace_path, view, cursor=None, theme="dark"):
    """A slide of a trace file's scene: its cursor, selection, colours and order as `gpuviz render` takes them."""
    return render_module.slide_for(scene_at(as_trace(trace_path), **(cursor or {})), view, theme)


def render(trace_path, out, *options):
    assert main(["render", str(trace_path), "--out", str(out), *options]) == 0, options
    return out


def colours_in(pixels: np.ndarray) -> set[tuple[int, int, int]]:
    return set(map(tuple, np.unique(pixels.reshape(-1, 3), axis=0).tolist()))


@pytest.mark.parametrize("view", ["grid", "timeline", "data"])
def test_a_png_is_size_times_scale_with_the_legend_in_its_strip(trace_path, view):
    options = PictureOptions((480, 300), 2.0, "light")
    slide = slide_for(trace_path, view, dict(select=130), options.theme)
    pixels = image_array(slide.image(options))
    assert pixels.shape == (600, 960, 3)
    legend = slide.view.legend_items()
    assert legend and slide.legend.isVisible()
    strip = slide.legend.geometry()  # the legend's own pixels: the view's colours do not count
    below = pixels[strip.top() * 2 : strip.bottom() * 2, strip.left() * 2 : strip.right() * 2]
    shown = colours_in(below)
    missing = [label for rgb, label in legend if rgb not in shown]
    assert not missing, f"swatches missing from the {view} legend: {missing}"
    assert "thread 130 = block (1, 0, 0) thread (2, 0, 0)" in slide.caption.text()
    assert slide.title.text().startswith("histogram_racy")
    slide.close()


def test_render_writes_a_png_of_the_requested_pixels_with_the_legend_colours(trace_path, tmp_path):
    out = render(trace_path, tmp_path / "slide.png", "--size", "640x360", "--scale", "1.5", "--theme", "dark")
    pixels = iio.imread(out)[..., :3]
    assert pixels.shape == (540, 960, 3)
    shown = colours_in(pixels)
    legend = slide_for(trace_path, "grid").view.legend_items()
    assert all(rgb in shown for rgb, _ in legend)


def test_render_writes_an_svg_of_the_requested_size_with_legend_title_and_selection(trace_path, tmp_path):
    out = render(trace_path, tmp_path / "slide.svg", "--view", "timeline", "--size", "800x450", "--scale", "2",
                 "--select", "300")  # fmt: skip
    root = ElementTree.fromstring(out.read_bytes())
    assert (root.get("width"), root.get("height")) == ("1600", "900")
    text = " ".join(" ".join(root.itertext()).split())  # wrapped lines are separate text elements
    for wanted in ("wave 0", "histogram_racy", "SM timeline", "thread 300 = block (2, 0, 0) thread (44, 0, 0)"):
        assert wanted in text, wanted


def test_at_is_a_frame_index_or_a_fraction(trace_path, tmp_path):
    slide = slide_for(trace_path, "grid", dict(at="0.5"))
    count = slide.state.plan.count
    assert count > 4 and slide.state.frame == round(0.5 * (count - 1))
    assert slide_for(trace_path, "grid", dict(at=3)).state.frame == 3
    assert f"frame 4 of {count:,}" in slide_for(trace_path, "grid", dict(at="3")).frame_label.text()
    assert slide_for(trace_path, "grid").frame_label.text() == ""  # the last frame: the whole launch
    half = iio.imread(render(trace_path, tmp_path / "half.png", "--at", "0.5", "--size", "320x200"))
    same = iio.imread(render(trace_path, tmp_path / "same.png", "--at", str(slide.state.frame), "--size", "320x200"))
    assert np.array_equal(half, same)


@pytest.mark.parametrize(
    "options, message",
    [
        (["--at", "999999"], "this launch has"),
        (["--at", "1.5"], "a fraction of the run is 0.0 to 1.0"),
        (["--at", "middle"], "give a frame index"),
        (["--scale", "20"], "scale 20: use 0.25 to 8"),
        (["--select", "5000"], "threads 0 to 511"),
        (["--from", "3"], "add --animate"),
        (["--animate", "--from", "5", "--to", "2"], "the clip would have no frame"),
        (["--animate", "--fps", "0"], "--fps 0: use 0.1 to 60"),
    ],
)
def test_render_refuses_bad_pictures_in_one_line(trace_path, tmp_path, capsys, options, message):
    out = tmp_path / ("clip.gif" if "--animate" in options else "x.png")
    assert main(["render", str(trace_path), "--out", str(out), "--size", "320x200", *options]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not out.exists()
    assert main(["render", str(trace_path), "--animate", "--out", str(tmp_path / "x.avi")]) == 1
    assert "use a .gif or .mp4" in capsys.readouterr().err


def test_a_gif_has_one_frame_per_animation_frame_each_as_render_at_draws_it(trace_path, tmp_path):
    out = render(trace_path, tmp_path / "run.gif", "--animate", "--size", "320x200", "--fps", "5", "--from", "1",
                 "--to", "6")  # fmt: skip
    gif = iio.imread(out, index=None)[..., :3].astype(int)
    assert gif.shape == (6, 200, 320, 3)
    assert all(np.abs(gif[k + 1] - gif[k]).sum() > 0 for k in range(5)), "consecutive frames differ"
    slide = slide_for(trace_path, "grid")
    options = PictureOptions((320, 200))
    frames = list(clip_frames(slide, frame_range(slide.state.plan.count, 1, 6), options))
    for k in (0, 3, 5):
        still = iio.imread(render(trace_path, tmp_path / f"at{k}.png", "--at", str(1 + k), "--size", "320x200"))
        assert np.array_equal(frames[k], still[..., :3]), f"clip frame {k} is `render --at {1 + k}`"
        assert np.abs(gif[k] - frames[k]).mean() < 4, "the GIF keeps the frame (up to its 256 colours)"
        assert np.abs(gif[k] - frames[k]).mean() < np.abs(gif[k] - frames[(k + 1) % 6]).mean()


def test_an_mp4_has_the_requested_frames(trace_path, tmp_path):
    pytest.importorskip("imageio_ffmpeg", reason="MP4 clips need imageio-ffmpeg (gpuviz[mp4])")
    out = render(trace_path, tmp_path / "run.mp4", "--animate", "--size", "320x200", "--fps", "8", "--to", "0.5")
    count = slide_for(trace_path, "grid").state.plan.count
    video = iio.imread(out, index=None, plugin="FFMPEG").astype(int)
    assert video.shape == (len(frame_range(count, None, "0.5")), 200, 320, 3)
    assert all(np.abs(video[k + 1] - video[k]).mean() > 0.01 for k in range(len(video) - 1))


def test_an_mp4_needs_an_even_size(trace_path, tmp_path, capsys):
    pytest.importorskip("imageio_ffmpeg", reason="MP4 clips need imageio-ffmpeg (gpuviz[mp4])")
    assert main(["render", str(trace_path), "--animate", "--size", "320x200", "--scale", "1.5",
                 "--out", str(tmp_path / "x.mp4")]) == 0  # fmt: skip
    assert main(["render", str(trace_path), "--animate", "--size", "321x200", "--out", str(tmp_path / "y.mp4")]) == 1
    assert "an MP4 needs an even width and height; this clip is 321x200 pixels" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.mp4"]


def test_a_cancelled_clip_leaves_no_file(trace_path, tmp_path):
    slide = slide_for(trace_path, "grid")
    seen = []
    out = tmp_path / "run.gif"
    stop_after_two = lambda done, total: seen.append((done, total)) or done < 2
    assert write_clip(slide, out, range(6), PictureOptions((200, 120)), 8, stop_after_two) is None
    assert seen == [(1, 6), (2, 6)] and not list(tmp_path.iterdir())


@pytest.mark.slow
def test_the_window_exports_copies_and_animates_its_current_view(qtbot, tmp_path, monkeypatch, trace_path):
    from PySide6.QtGui import QGuiApplication

    from gpuviz.app.window.main_window import MainWindow

    monkeypatch.setenv("GPUVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.state.set_trace(gpuviz.load(trace_path))
    window.state.set_frame(2)
    window.state.select(7)
    window.tabs.setCurrentWidget(window.views["timeline"])
    size_before = window.views["timeline"].size()
    out = window.pictures.save_picture(tmp_path / "t.png", PictureOptions((400, 250), 2))
    assert iio.imread(out).shape[:2] == (500, 800) and window.views["timeline"].size() == size_before
    assert window.state.frame == 2 and window.state.selected == 7  # the window's own state is untouched
    window.pictures.copy_picture()
    assert not QGuiApplication.clipboard().image().isNull() and "copied" in window.status.text()
    window.tabs.setCurrentWidget(window.views["grid"])
    clip = window.pictures.save_animation(tmp_path / "run.gif", PictureOptions((320, 200)), 8)
    assert iio.imread(clip, index=None).shape[0] == len(frame_range(window.state.plan.count))
    window.close()


def test_the_view_keeps_its_place_in_every_frame_of_a_clip(trace_path):
    slide = slide_for(trace_path, "grid", dict(select=3))
    options = PictureOptions((400, 240))
    places = set()
    for frame in frame_range(slide.state.plan.count):
        slide.state.set_frame(frame)
        slide.image(options)
        places.add((slide.drawing_rect().getRect(), slide.view.drawing().size().toTuple()))
    assert len(places) == 1, places


def pixel_codes(pixels: np.ndarray) -> np.ndarray:
    wide = pixels.astype(np.uint32)
    return (wide[..., 0] << 16) | (wide[..., 1] << 8) | wide[..., 2]


def contains(pixels: np.ndarray, patch: np.ndarray) -> bool:
    """Whether the picture holds the patch, pixel for pixel, anywhere: rows matching the patch's most varied
    row first, then the whole patch at each of them."""
    image, patch = pixel_codes(pixels), pixel_codes(patch)
    height, width = patch.shape
    if height > image.shape[0] or width > image.shape[1]:
        return False
    anchor = max(range(height), key=lambda row: len(np.unique(patch[row])))
    ys, xs = np.nonzero((sliding_window_view(image, width, axis=1) == patch[anchor]).all(axis=2))
    return any(y >= anchor and np.array_equal(image[y - anchor : y - anchor + height, x : x + width], patch)
               for y, x in zip(ys, xs))  # fmt: skip


CONTROLS = ("QComboBox", "QAbstractSpinBox", "QAbstractButton", "QProgressBar", "QSlider", "QLineEdit")


@pytest.mark.parametrize("view", PICTURE_VIEWS)
def test_an_export_is_the_views_drawing_with_its_words_and_no_control(trace_path, tmp_path, view):
    """The file holds the view's drawing, whole and where the slide puts it, and none of the combo boxes,
    spin boxes or bars the view shows in the window (each looked for, pixel for pixel, in the file)."""
    from PySide6 import QtWidgets

    out = render(trace_path, tmp_path / f"{view}.png", "--view", view, "--size", "800x450", "--theme", "light")
    pixels = iio.imread(out)[..., :3]
    slide = slide_for(trace_path, view, theme="light")
    assert np.array_equal(image_array(slide.image(PictureOptions((800, 450), theme="light"))), pixels)
    x, y, width, height = slide.drawing_rect().getRect()
    drawing = image_array(slide.view.drawing().grab().toImage())
    assert drawing.shape == (height, width, 3) and np.array_equal(pixels[y : y + height, x : x + width], drawing)
    kinds = tuple(getattr(QtWidgets, name) for name in CONTROLS)
    controls = [c for c in slide.view.findChildren(QtWidgets.QWidget) if isinstance(c, kinds) and c.isVisible()]
    shown = [type(c).__name__ for c in controls if contains(pixels, image_array(c.grab().toImage()))]
    assert not shown, f"the {view} export shows its controls: {shown}"
    title = colours_in(pixels[:y])  # above the drawing: the title's words, in the theme's text colour
    assert tuple(int(c) for c in bytes.fromhex(THEMES["light"].text[1:])) in title
    words = [label.text() for label in slide.findChildren(QtWidgets.QLabel)]
    assert not any("`" in text for text in words), "backticks are code in rich text, gone in plain text"
    drawn = [piece.label for piece in slide.legend.pieces]
    assert len(set(drawn)) == len(drawn), f"the legend says a thing twice: {drawn}"
    slide.close()


SMALL = """from numba import cuda

@cuda.jit
def scale(a):
    i = cuda.grid(1) % a.size
    a[i] = a[i] * 1.5 + 1048576
"""


@pytest.mark.parametrize("view, launch", [("data", (16, 32)), ("data", (1, 8)), ("grid", (1, 8))])
def test_the_default_clip_of_a_small_array_fills_most_of_the_frame(tmp_path, view, launch):
    """Eight elements (written by 16 blocks, whose legend is long, or by one) or eight threads, in a clip of
    the default size: the cells span most of the frame's width, not a thumbnail under the words.
    Measured on the last frame, colour by colour of the legend (GIF's 256 colours allowed for), where
    more than a legend swatch's worth of one colour stands in a row or a column."""
    trace = gpuviz.trace(SMALL, backend="sim")[launch](np.arange(8, dtype=np.float32))
    out = render(trace.save(tmp_path / "small.npz"), tmp_path / "small.gif", "--animate", "--view", view)
    frame = iio.imread(out, index=None)[-1, ..., :3].astype(int)
    height, width, _ = frame.shape
    assert (width, height) == (640, 360), "a clip is 640x360 unless asked otherwise"
    left, right = width, 0
    for rgb, _ in slide_for(tmp_path / "small.npz", view).view.legend_items():
        for shade in (np.array(rgb), np.array(rgb) // 2):  # the grid's replay dims finished threads
            cells = (np.abs(frame - shade) <= 24).all(axis=2)
            columns = np.flatnonzero(cells.sum(axis=0) > 0.05 * height)
            if len(columns) and (cells.sum(axis=1) > 0.05 * width).any():
                left, right = min(left, columns[0]), max(right, columns[-1])
    assert right - left >= 0.75 * width, f"{view} of {launch}: the cells span {right - left} of {width} pixels"


def test_what_the_call_out_over_a_lessons_marks_says_the_legend_does_not_say_again(trace_path):
    """A lesson's marks bring a call-out into the drawing that explains the value colours; the legend under
    the picture keeps only the rest, and between them every colour is still said."""
    from gpuviz.catalog.evidence import parse_evidence, resolve
    from gpuviz.core.replay import Replay

    trace = as_trace(trace_path)
    evidence = parse_evidence("view: grid\nat: lost update of bins[0]\nthread: lost update of bins[0]\n"
                              "element: bins[0]\ncolour: value read\nmark: readers of the element\ncaption: {value}")
    slide = render_module.slide_for(resolve(evidence, trace, Replay(trace)), "grid")
    slide.image(PictureOptions((800, 450)))
    in_drawing, strip = slide.view.legend_in_drawing(), [label for _, label in slide.legend.items]
    assert in_drawing and not {label for _, label in in_drawing} & set(strip), strip
    assert {label for _, label in slide.view.legend_items()} == {label for _, label in in_drawing} | set(strip)
    slide.close()
