"""Whatever is in the user's data folder, the app starts, says in one line what was wrong, and sets the
bad file aside (never deleted, never followed); another app's live autosave is never touched."""

import errno
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from gpuviz.app.control import autosave_slots, document
from gpuviz.app.window.main_window import MainWindow
from gpuviz.catalog.student_progress import ProgressBook
from gpuviz.core import files

ROOT = Path(__file__).resolve().parent.parent


def data() -> Path:
    folder = Path(os.environ["GPUVIZ_DATA"])
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def old_autosave(script: bytes | None = b"x = 1\n", about: bytes | None = b'{"path": ""}') -> Path:
    """An autosave slot whose app is gone."""
    slot = data() / "autosave" / "1-dead"
    slot.mkdir(parents=True)
    (slot / "lock").touch()
    if script is not None:
        (slot / "script.py").write_bytes(script)
    if about is not None:
        (slot / "about.json").write_bytes(about)
    return slot


def started(qtbot) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    return win


def aside(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".bad-" in p.name)


@pytest.mark.parametrize(("script", "about", "reason"), [
    (b"x = 1\n", b"{not json", "not JSON"),
    (b"x = 1\n", b'{"path": {"nested": 1}}', "expected"),
    (b"x = 1\n", b"[1, 2]", "expected"),
    (b"\xff\xfe bad", b'{"path": ""}', "not UTF-8"),
    (b"x = 1\n", b"[" * 200_000 + b"]" * 200_000, "nested too deep"),
], ids=["bad json", "nested path", "a list", "bad utf-8", "deep"])  # fmt: skip
def test_a_bad_autosave_is_set_aside_and_the_app_starts(qtbot, script, about, reason):
    slot = old_autosave(script, about)
    win = started(qtbot)
    status = win.status.text()
    assert reason in status and "moved aside" in status and "\n" not in status
    assert not slot.exists() and len(aside(slot.parent)) == 1  # kept, under a name that says why
    assert win.editor.toPlainText() == ""


def test_a_folder_where_the_autosave_script_should_be(qtbot):
    slot = old_autosave(script=None)
    (slot / "script.py").mkdir()
    win = started(qtbot)
    assert "folder" in win.status.text() and len(aside(slot.parent)) == 1


def test_an_autosave_folder_that_is_a_file(qtbot):
    (data() / "autosave").write_text("not a folder")
    win = started(qtbot)
    assert "not a folder" in win.status.text() and aside(data()) == [n for n in aside(data()) if "autosave" in n]
    win.document.editor.insertPlainText("x = 1\n")
    win.document.autosave()  # the folder is free again
    assert (win.document.slot.folder / "script.py").read_text() == "x = 1\n"
    win.document.discard_autosave()


@pytest.mark.parametrize("kind", ["bad json", "deep", "huge", "fifo", "link loop", "folder", "bad utf-8", "layout"])
def test_a_bad_progress_file_never_stops_the_app(qtbot, kind):
    path = data() / "progress.json"
    if kind == "bad json":
        path.write_text("{")
    elif kind == "deep":
        path.write_text("[" * 200_000 + "]" * 200_000)
    elif kind == "huge":
        with open(path, "wb") as stream:
            stream.truncate(70 << 20)  # 70 MB (sparse): refused by its size before a byte is read
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link loop":
        os.symlink(path.name, path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "bad utf-8":
        path.write_bytes(b'{"format": "\xff"}')
    else:
        path.write_text('{"format": "gpuviz-progress/1", "lessons": {"01": {"ran": "yes"}}}')
    began = time.monotonic()
    win = started(qtbot)
    assert time.monotonic() - began < 30
    status = win.status.text()
    assert "progress file" in status and "moved aside" in status and "\n" not in status
    assert not os.path.lexists(path) and len(aside(data())) == 1
    if kind == "huge":
        assert f"{1 << 20:,}" in status  # the limit is named


def test_a_read_only_data_folder(qtbot, monkeypatch):
    read_only = OSError(errno.EROFS, os.strerror(errno.EROFS))

    def refuse(*args, **kwargs):
        raise read_only

    monkeypatch.setattr(Path, "mkdir", refuse)
    monkeypatch.setattr(files, "_open_new", refuse)
    win = started(qtbot)
    shown = []
    win.document.status.connect(lambda text, error: shown.append(text))
    win.editor.insertPlainText("x = 1\n")
    for _ in range(3):
        win.document.autosave()
    assert len(shown) == 1 and "Read-only file system" in shown[0]  # said once, not on every autosave
    win.course._on_progress("one-thread", {"ran": True})
    win.course._on_progress("one-thread", {"prediction": "1"})
    assert "progress" in win.status.text() and "Read-only" in win.status.text()
    win.document.editor.document().setModified(False)


@pytest.mark.parametrize("fault", ["full", "read-only", "folder"])
def test_saving_progress_never_raises_and_leaves_nothing_partial(tmp_path, monkeypatch, fault):
    path = tmp_path / "progress.json"
    book = ProgressBook(path)
    if fault == "folder":
        path.mkdir()  # in the way after the book was read
    else:
        code = errno.ENOSPC if fault == "full" else errno.EROFS

        def refuse(target):
            raise OSError(code, os.strerror(code))

        monkeypatch.setattr(files, "_open_new", refuse)
    book.update("one-thread", ran=True)
    assert book.problem and "\n" not in book.problem and book.get("one-thread").ran
    assert sorted(p.name for p in tmp_path.iterdir()) == (["progress.json"] if fault == "folder" else [])


def test_another_windows_live_autosave_is_not_offered_or_touched(qtbot, monkeypatch):
    first = started(qtbot)
    first.editor.insertPlainText("# first window's work\n")
    first.document.autosave()
    own = first.document.slot.folder / "script.py"
    asked = []
    monkeypatch.setattr(document, "offer", lambda parent, title, text: asked.append(text) or False)
    second = started(qtbot)
    second.editor.insertPlainText("# second\n")
    second.document.autosave()
    second.document.discard_autosave()
    assert asked == [] and own.read_text() == "# first window's work\n"
    for win in (first, second):
        win.document.editor.document().setModified(False)


def test_two_app_processes_keep_their_own_autosaves(qtbot, monkeypatch):
    """A second app, started while another app process runs with unsaved work, is offered nothing,
    deletes nothing and overwrites nothing; once that process is gone its work is offered."""
    other = textwrap.dedent("""
        import sys
        from gpuviz.app.window.main_window import MainWindow
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        win = MainWindow()
        win.editor.insertPlainText("# the other app's work\\n")
        win.document.autosave()
        print(win.document.slot.folder, flush=True)
        sys.stdin.readline()  # runs until told to die
        import os
        os._exit(0)  # dies: no close, no discard
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    process = subprocess.Popen([sys.executable, "-c", other], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, env=env)  # fmt: skip
    try:
        slot = Path(process.stdout.readline().strip())
        assert (slot / "script.py").exists()
        asked = []
        monkeypatch.setattr(document, "offer", lambda parent, title, text: asked.append(text) or False)
        mine = started(qtbot)
        mine.editor.insertPlainText("# mine\n")
        mine.document.autosave()
        assert asked == [] and (slot / "script.py").read_text() == "# the other app's work\n"
        assert mine.document.slot.folder != slot
        mine.document.discard_autosave()
    finally:
        process.communicate("die\n", timeout=60)
    found, problems = autosave_slots.orphans(slot.parent)
    assert [orphan.text for orphan in found] == ["# the other app's work\n"] and problems == []


def test_an_older_single_autosave_is_still_offered(qtbot, monkeypatch):
    folder = data() / "autosave"
    folder.mkdir()
    (folder / "script.py").write_text("# old\n")
    (folder / "about.json").write_text(json.dumps({"path": ""}))
    monkeypatch.setattr(document, "offer", lambda parent, title, text: True)
    win = started(qtbot)
    assert win.editor.toPlainText() == "# old\n" and not (folder / "script.py").exists()
    win.document.discard_autosave()
    win.document.editor.document().setModified(False)


def test_recent_files_of_the_wrong_type_are_ignored():
    document.settings().setValue("recent", 42)
    assert document.recent_files() == []
    document.settings().setValue("recent", ["a.py", 3])
    assert document.recent_files() == ["a.py"]


@pytest.mark.parametrize("kind", ["fifo", "garbage", "huge", "folder"])
def test_a_bad_settings_file_never_stops_the_app(qtbot, monkeypatch, tmp_path, kind):
    from gpuviz.app.window import settings

    path = tmp_path / "odd" / "settings.ini"
    path.parent.mkdir()
    monkeypatch.setenv("GPUVIZ_SETTINGS", str(path))
    monkeypatch.setattr(settings, "_checked", set())
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "garbage":
        path.write_bytes(b"\xff\xfe[[[\n=\x00garbage")
    elif kind == "huge":
        with open(path, "wb") as stream:
            stream.truncate(70 << 20)
    else:
        path.mkdir()
    win = started(qtbot)
    assert "settings file" in win.status.text() and len(aside(path.parent)) == 1


def test_settings_on_a_read_only_disk_are_kept_for_the_session(qtbot, monkeypatch, tmp_path):
    """Qt writes its settings itself and reports a failure in its status: the app goes on."""
    path = tmp_path / "ro" / "settings.ini"
    monkeypatch.setenv("GPUVIZ_SETTINGS", str(path))
    path.parent.mkdir()
    os.chmod(path.parent, 0o500)  # read-only for a user; root writes anyway, and that is fine too
    try:
        win = started(qtbot)
        win.close()  # the layout and preferences are saved here
    finally:
        os.chmod(path.parent, 0o700)


@pytest.mark.parametrize("kind", ["huge", "fifo", "link"])
def test_an_autosave_that_is_huge_a_fifo_or_a_link_is_set_aside(qtbot, kind, tmp_path):
    slot = old_autosave(script=None)
    script = slot / "script.py"
    if kind == "huge":
        with open(script, "wb") as stream:
            stream.truncate(70 << 20)  # 70 MB: refused by its size, never read
    elif kind == "fifo":
        os.mkfifo(script)
    else:
        target = tmp_path / "elsewhere.py"
        target.write_text("never followed\n")
        os.symlink(target, script)
    began = time.monotonic()
    win = started(qtbot)
    assert time.monotonic() - began < 30 and "autosave" in win.status.text()
    assert not slot.exists() and len(aside(slot.parent)) == 1 and win.editor.toPlainText() == ""
    if kind == "link":
        assert target.read_text() == "never followed\n"


def test_settings_that_cannot_be_written_are_said_once_and_used_anyway(qtbot, monkeypatch, tmp_path):
    """A file where the settings' folder should be (as a read-only or full disk, it refuses every write,
    root's too): the theme still changes, the status says once that it is not remembered, and the window
    closes cleanly."""
    from gpuviz.app.window import settings

    (tmp_path / "blocked").write_text("a file, not a folder")
    path = tmp_path / "blocked" / "settings.ini"
    monkeypatch.setenv("GPUVIZ_SETTINGS", str(path))
    monkeypatch.setenv("GPUVIZ_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(settings, "_unwritable", set())
    win = started(qtbot)
    win.look.set_theme("light")
    assert win.look.theme == "light" and "cannot be written" in win.status.text()
    win.set_status("something else", error=False)
    win.look.set_theme("dark")
    assert win.look.theme == "dark" and "cannot be written" not in win.status.text()  # said once, not each time
    assert settings.remember(theme="light") is False
    win.close()
    assert not path.exists()
