"""Files are written whole or not at all: a full disk, a folder or a device as target give one line."""

import errno
import io
import os

import numpy as np
import pytest

from gpuviz.core import files
from gpuviz.core.files import WriteError, replaced, write_file, write_text

SRC = """from numba import cuda

@cuda.jit
def double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 2 * a[i]
"""


class FullDisk(io.RawIOBase):
    """A file on a disk that fills up after `room` bytes, like /dev/full once the room is gone."""

    def __init__(self, path, room: int):
        self._file = open(path, "xb")  # noqa: SIM115 (closed in close()); the temporary exists, as it would on a real disk
        self.room = room

    def writable(self):
        return True

    def write(self, data):
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return self._file.write(data)

    def tell(self):
        return self._file.tell()

    def fileno(self):
        return self._file.fileno()

    def close(self):
        self._file.close()
        super().close()


@pytest.fixture
def full_disk(monkeypatch):
    def fill_after(room: int):
        monkeypatch.setattr(files, "_open_new", lambda path: FullDisk(path, room))

    return fill_after


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir())


def test_write_is_whole_and_leaves_only_the_file(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    write_text(target, "hello")
    assert target.read_text() == "hello" and leftovers(target.parent) == ["out.txt"]


def test_a_file_written_again_soon_is_whole_without_an_fsync(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(files.os, "fsync", lambda fd: synced.append(fd))
    target = tmp_path / "run.bin"
    write_file(target, lambda stream: stream.write(b"x" * 100), durable=False)
    assert target.read_bytes() == b"x" * 100 and leftovers(tmp_path) == ["run.bin"] and synced == []
    write_file(target, lambda stream: stream.write(b"y" * 100))
    assert target.read_bytes() == b"y" * 100 and len(synced) == 1


def test_full_disk_leaves_nothing_and_keeps_an_old_file(tmp_path, full_disk):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    full_disk(10)
    with pytest.raises(WriteError, match=r"out.bin: No space left on device; nothing was written"):
        write_file(target, lambda stream: stream.write(b"x" * 100))
    assert target.read_bytes() == b"old" and leftovers(tmp_path) == ["out.bin"]


def test_dev_full_is_refused_as_a_target(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with pytest.raises(WriteError, match="/dev/full: it is not a regular file"):
        write_text("/dev/full", "x")


def test_dev_full_as_the_disk_behind_the_temporary(tmp_path, monkeypatch):
    """/dev/full accepts the bytes into the buffer and refuses them on flush, as a full disk does."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")

    def open_on_full_disk(path):
        path.touch()
        return open("/dev/full", "wb")

    monkeypatch.setattr(files, "_open_new", open_on_full_disk)
    with pytest.raises(WriteError, match="No space left on device"):
        write_text(tmp_path / "out.txt", "some text")
    assert leftovers(tmp_path) == []


def test_writer_that_claims_success_but_wrote_nothing(tmp_path):
    """Qt's save() on a full disk: says it worked, leaves an empty file."""
    target = tmp_path / "p.png"
    with pytest.raises(WriteError, match="came out empty"), replaced(target, "picture") as temporary:
        temporary.touch()
    assert leftovers(tmp_path) == []


def test_check_reads_the_written_file(tmp_path):
    target = tmp_path / "p.svg"
    with pytest.raises(WriteError, match="cut short"), replaced(target, "picture", lambda p: "cut short") as temporary:
        temporary.write_bytes(b"<svg")
    assert leftovers(tmp_path) == []


def test_trace_save_to_a_folder_is_one_line(tmp_path, sim_run):
    trace = sim_run(SRC, 1, 4, np.ones(4, np.float32))
    with pytest.raises(WriteError) as caught:
        trace.save(tmp_path)
    message = str(caught.value)
    assert "\n" not in message and "it is a folder; give a file name" in message


def test_trace_save_on_a_full_disk_leaves_no_truncated_trace(tmp_path, sim_run, full_disk):
    trace = sim_run(SRC, 1, 4, np.ones(4, np.float32))
    full_disk(500)
    with pytest.raises(WriteError, match="trace .*t.npz: No space left on device"):
        trace.save(tmp_path / "t.npz")
    assert leftovers(tmp_path) == []


def test_cli_run_on_a_full_disk_fails_with_one_line(tmp_path, full_disk, capsys):
    from gpuviz.cli import main

    script = tmp_path / "s.py"
    script.write_text(SRC + "\nimport numpy as np\ndouble[1, 4](np.ones(4, np.float32))\n")
    full_disk(500)
    assert main(["run", str(script), "--backend", "sim", "--out", str(tmp_path / "traces")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: cannot write the trace") and "nothing was written" in err[-1]
    assert leftovers(tmp_path / "traces") == []
