"""Pictures for slides and clips of a run: size x scale, the legend, the caption, frames of the animation."""

import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")
pytest.importorskip("imageio", reason="clips and these checks read pictures with imageio")

import imageio.v3 as iio

import gpuviz
from gpuviz.app.pictures import render as render_module
from gpuviz.app.pictures.clip import clip_frames, frame_range, write_clip
from gpuviz.app.pictures.picture import PictureOptions, image_array
from gpuviz.cli import main
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
    return render_module.slide_for(scene_at(render_module.as_trace(trace_path), **(cursor or {})), view, theme)


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
    assert f"frame 4 of {count}" in slide_for(trace_path, "grid", dict(at="3")).frame_label.text()
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
        places.add(slide.view.geometry().getRect())
    assert len(places) == 1, places


@pytest.mark.slow
def test_the_menu_actions_ask_size_scale_theme_and_file(qtbot, tmp_path, monkeypatch, trace_path):
    from PySide6.QtWidgets import QDialog, QFileDialog

    from gpuviz.app.pictures import picture_actions
    from gpuviz.app.window.main_window import MainWindow

    monkeypatch.setenv("GPUVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    window = MainWindow()
    qtbot.addWidget(window)
    window.pictures.export_picture()
    assert "nothing to export yet" in window.status.text()
    window.state.set_trace(gpuviz.load(trace_path))

    def answer(dialog):
        dialog.size_box.setCurrentText("400x300")
        dialog.scale.setValue(2)
        dialog.theme.setCurrentText("light")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(picture_actions.PictureDialog, "exec", answer)
    chosen = iter([str(tmp_path / "view.svg"), str(tmp_path / "run.gif")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (next(chosen), ""))
    window.export_dialog()  # Ctrl+E
    assert window.status.text() == "exported view.svg"
    assert b'width="800" height="600"' in (tmp_path / "view.svg").read_bytes()
    window.pictures.export_animation()
    assert window.status.text() == "exported run.gif"
    frames = len(frame_range(window.state.plan.count))
    assert iio.imread(tmp_path / "run.gif", index=None).shape == (frames, 600, 800, 3)
    window.close()


def test_picture_actions_need_only_the_state_the_tabs_and_a_status_line(qtbot, tmp_path, monkeypatch, trace_path):
    """Built from stand-ins, with no main window: a tab widget holding one view, a state and a status list."""
    from PySide6.QtWidgets import QDialog, QFileDialog, QTabWidget

    from gpuviz.app.pictures.picture_actions import PictureActions, PictureDialog
    from gpuviz.app.views.table import make_view
    from gpuviz.scene.state import AppState

    state, said = AppState(), []
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    views = {"grid": make_view("grid", state)}
    tabs.addTab(views["grid"], "Threads")
    actions = PictureActions(state, tabs, views, lambda text, error=False: said.append((text, error)), tabs)
    actions.copy_picture()
    assert said == [("error: nothing to copy yet; run a kernel or open a trace", True)]
    state.set_trace(gpuviz.load(trace_path))
    out = actions.save_picture(tmp_path / "grid.png", PictureOptions((320, 200)))
    assert iio.imread(out).shape[:2] == (200, 320)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: ("", ""))  # the file dialog cancelled
    monkeypatch.setattr(PictureDialog, "exec", lambda dialog: QDialog.DialogCode.Accepted)
    actions.export_picture()
    assert len(said) == 1  # a file dialog cancelled: nothing written, nothing said
