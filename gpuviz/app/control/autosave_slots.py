"""Autosave slots: one folder per running app under the data folder's `autosave/`, locked by its process
(an flock on `lock`, which the system lets go however the process ends), so an app offers back only
the work of an app that is gone, and never deletes or overwrites the autosave of one that still runs."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from gpuviz.core.files import WriteError, write_text
from gpuviz.core.user_files import MAX_BYTES, UnreadableFile, read_json, read_text, set_aside

try:
    import fcntl
except ImportError:  # no flock: a slot is live while a process of its number runs
    fcntl = None

SCRIPT, ABOUT, LOCK = "script.py", "about.json", "lock"


@dataclass(frozen=True)
class Orphan:
    """The autosave of an app that is gone."""

    folder: Path
    text: str
    origin: Path | None  # the script it was a change of, None for an untitled one


class Slot:
    """This app's own slot: made at its first write, locked while the app runs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder: Path | None = None
        self._lock: int | None = None

    def write(self, text: str, origin: Path | None) -> None:
        """Both files, each whole (files.py); WriteError with one line when the disk refuses."""
        folder = self._claim()
        write_text(folder / SCRIPT, text, "autosave")
        write_text(folder / ABOUT, _about(origin), "autosave")

    def adopt(self, orphan: Orphan) -> None:
        """Take over a gone app's autosave: its text becomes this slot's until saved or discarded."""
        try:
            self.write(orphan.text, orphan.origin)
        except WriteError:
            return  # the orphan stays where it is, to be offered again
        discard(orphan)

    def clear(self) -> None:
        """The work is saved or discarded: the slot goes, its lock last."""
        if self.folder is not None:
            for name in (SCRIPT, ABOUT, LOCK):
                (self.folder / name).unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # something else put there stays
                self.folder.rmdir()
        self.forget()

    def forget(self) -> None:
        """Let go of the lock and leave the files (what a process that dies does)."""
        if self._lock is not None:
            os.close(self._lock)
        self.folder, self._lock = None, None

    def _claim(self) -> Path:
        if self.folder is None:
            folder = self.root / f"{os.getpid()}-{secrets.token_hex(3)}"
            try:
                folder.mkdir(parents=True)
                self._lock = _take(folder / LOCK)
            except OSError as exc:
                raise WriteError(f"cannot write the autosave in {self.root}: {exc.strerror or exc}") from None
            self.folder = folder
        return self.folder


def discard(orphan: Orphan) -> None:
    """The user said no (or it is adopted): a gone app's autosave goes."""
    if (orphan.folder / LOCK).exists():
        shutil.rmtree(orphan.folder, ignore_errors=True)
    else:  # an older gpuviz's single autosave, in the autosave folder itself
        for name in (SCRIPT, ABOUT):
            (orphan.folder / name).unlink(missing_ok=True)


def orphans(root: Path) -> tuple[list[Orphan], list[str]]:
    """The autosaves of apps that are gone, newest first, and a line for each one that was bad (set aside)."""
    found, problems = [], []
    for folder in _slot_folders(root, problems):
        lock = _take(folder / LOCK, create=False) if folder != root else None
        if lock is False:
            continue  # its app still runs
        try:
            orphan = _read(folder)
        except UnreadableFile as exc:
            what = folder if folder != root else exc.path
            problems.append(f"autosave {exc.path} could not be read ({exc.reason}); {set_aside(what, exc.reason)}")
            orphan = None
        finally:
            if isinstance(lock, int):
                os.close(lock)
        if orphan is not None:
            found.append(orphan)
    found.sort(key=lambda orphan: _mtime(orphan.folder / SCRIPT), reverse=True)
    return found, problems


def _slot_folders(root: Path, problems: list[str]) -> list[Path]:
    """Slot folders, and the root itself where an older gpuviz kept one autosave there."""
    try:
        entries = [root] + [p for p in root.iterdir() if ".bad-" not in p.name and not p.is_symlink() and p.is_dir()]
    except FileNotFoundError:
        return []
    except OSError as exc:
        if os.path.lexists(root) and not root.is_dir():
            problems.append(f"autosave folder {root} is not a folder; {set_aside(root, 'not a folder')}")
        else:
            problems.append(f"autosave folder {root} cannot be read ({exc.strerror or exc}); ignored this session")
        return []
    return [folder for folder in entries if os.path.lexists(folder / SCRIPT)]


def _read(folder: Path) -> Orphan | None:
    text = read_text(folder / SCRIPT, MAX_BYTES)
    about = read_json(folder / ABOUT, MAX_BYTES) or {}
    path = about.get("path", "") if isinstance(about, dict) else None
    if not isinstance(path, str) or "\0" in path:
        raise UnreadableFile(folder / ABOUT, 'expected {"path": "the script\'s path"}')
    return None if text is None else Orphan(folder, text, Path(path) if path else None)


def _about(origin: Path | None) -> str:
    return json.dumps({"path": str(origin or "")})


def _take(path: Path, create: bool = True) -> int | bool | None:
    """An open, locked descriptor; False when a live process holds the lock; None where there is none
    to take (a slot being cleared, or no flock here and its process is gone)."""
    if fcntl is None:
        pid = path.parent.name.split("-")[0]
        return False if pid.isdigit() and _alive(int(pid)) else None
    try:
        fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0) | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        if create:
            raise
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    return fd


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
