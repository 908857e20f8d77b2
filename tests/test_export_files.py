"""Pictures are written whole or not at all: Qt's own answer is not trusted, the file written is read back."""

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="pictures need PySide6")
pytest.importorskip("pyqtgraph", reason="pictures need pyqtgraph")

import gpuviz
from gpuviz.app.pictures import picture
from gpuviz.cli import main

SRC = """from numba import cuda

@cuda.jit
def double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 2 * a[i]
"""


@pytest.fixture
def trace_path(tmp_path):
    trace = gpuviz.trace(SRC, backend="sim")[2, 32](np.ones(64, np.float32))
    return trace.save(tmp_path / "t.npz")


def render(trace_path, out, capsys) -> tuple[int, list[str]]:
    code = main(["render", str(trace_path), "--out", str(out), "--size", "300x200"])
    captured = capsys.readouterr()
    return code, captured.err.strip().splitlines() + captured.out.strip().splitlines()


def picture_files(folder):
    return sorted(p.name for p in folder.iterdir() if p.suffix != ".npz")


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_a_cut_picture_is_an_error_and_leaves_nothing(trace_path, tmp_path, capsys, monkeypatch, suffix):
    """What a full disk does to Qt: save() succeeds, the file holds only its first bytes."""
    real = picture._write_data

    def write_then_cut(data, temporary):
        real(data, temporary)
        with open(temporary, "r+b") as stream:
            stream.truncate(40)

    monkeypatch.setattr(picture, "_write_data", write_then_cut)
    code, lines = render(trace_path, tmp_path / f"p{suffix}", capsys)
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: cannot write the picture")
    assert picture_files(tmp_path) == []


def test_an_empty_picture_is_an_error(trace_path, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(picture, "_write_data", lambda data, temporary: temporary.touch())
    code, lines = render(trace_path, tmp_path / "p.png", capsys)
    assert code == 1 and "came out empty" in lines[0] and picture_files(tmp_path) == []


def test_render_to_a_folder_or_a_device_is_one_line(trace_path, tmp_path, capsys):
    folder = tmp_path / "shots.png"
    folder.mkdir()
    code, lines = render(trace_path, folder, capsys)
    assert code == 1 and lines == [f"error: cannot write the picture to {folder}: it is a folder; give a file name"]


def test_good_pictures_replace_old_ones_whole(trace_path, tmp_path, capsys):
    out = tmp_path / "p.png"
    out.write_bytes(b"old")
    code, lines = render(trace_path, out, capsys)
    assert code == 0 and lines == [f"wrote {out}"] and out.read_bytes().startswith(b"\x89PNG")
    assert picture_files(tmp_path) == ["p.png"]
