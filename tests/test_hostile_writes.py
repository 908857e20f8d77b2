"""Everything gpuviz writes goes through files.py: a clip or picture to a place that cannot take it (a
full disk, a read-only folder, /proc) is one line, exit status 1, and nothing partial left behind."""

import errno
import os

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="pictures need PySide6")
pytest.importorskip("pyqtgraph", reason="pictures need pyqtgraph")

import gpuviz
from gpuviz.app.pictures import clip
from gpuviz.cli import main
from tests.test_export_files import SRC  # the same small kernel the picture tests write


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory):
    trace = gpuviz.trace(SRC, backend="sim")[2, 32](np.arange(64, dtype=np.float32))
    return str(trace.save(tmp_path_factory.mktemp("trace") / "double.npz"))


def render(trace_path, out, *more):
    return main(["render", trace_path, "--view", "grid", "--size", "160x120", "--out", str(out), *more])


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def failing_writer(code: int, room: int):
    """A GIF writer whose disk takes `room` bytes, then refuses with `code`."""

    def make(path, fps, options):
        stream = open(path, "xb")  # noqa: SIM115 (closed by the writer's close)
        written = [0]

        def append(frame):
            if written[0] + 16 << 10 > room:
                raise OSError(code, os.strerror(code))
            stream.write(b"\0" * (16 << 10))
            written[0] += 16 << 10

        class Writer:
            close = stream.close

        return Writer(), append

    return make


@pytest.mark.parametrize(("code", "words"), [(errno.ENOSPC, "No space left"), (errno.EROFS, "Read-only")])
def test_a_clip_on_a_full_or_read_only_disk_is_one_line_and_leaves_nothing(trace_path, tmp_path, capsys,
                                                                           monkeypatch, code, words):  # fmt: skip
    monkeypatch.setitem(clip.WRITERS, ".gif", failing_writer(code, room=20 << 10))
    (tmp_path / "a.gif").write_bytes(b"the old clip")
    assert render(trace_path, tmp_path / "a.gif", "--animate") == 1
    assert words in one_error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gif"]  # no .a.part.gif, and the old one kept
    assert (tmp_path / "a.gif").read_bytes() == b"the old clip"


@pytest.mark.parametrize("out", ["/proc/a.gif", "/proc/a.png", "/proc/a.svg"])
def test_render_to_a_place_that_takes_no_files_is_one_line(trace_path, capsys, out):
    more = ["--animate"] if out.endswith(".gif") else []
    assert render(trace_path, out, *more) == 1
    assert "cannot write" in one_error_line(capsys)


@pytest.mark.parametrize("suffix", [".png", ".svg", ".gif"])
def test_render_to_a_read_only_folder_is_one_line(trace_path, tmp_path, capsys, monkeypatch, suffix):
    """Root ignores a folder's mode: the folder refuses new files here as a read-only one would."""
    from gpuviz.core import files

    def read_only(path, *args, **kwargs):
        raise files.WriteError(f"cannot write the picture {path}: {os.strerror(errno.EROFS)}; nothing was written")

    monkeypatch.setattr(files, "_check_target", read_only)
    more = ["--animate"] if suffix == ".gif" else []
    assert render(trace_path, tmp_path / f"a{suffix}", *more) == 1
    assert "Read-only" in one_error_line(capsys) and not list(tmp_path.iterdir())


def test_a_clip_is_written_whole(trace_path, tmp_path, capsys):
    assert render(trace_path, tmp_path / "a.gif", "--animate") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gif"] and (tmp_path / "a.gif").stat().st_size > 0
