"""Where the app remembers things: QSettings (GPUVIZ_SETTINGS names an ini file, for tests and
portable installs) and a folder for the user's own files (GPUVIZ_DATA; else beside GPUVIZ_SETTINGS's
file when that is set, so a separate settings file never shares autosaves; else the platform's)."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from gpuviz.core.user_files import set_aside

MAX_SETTINGS_BYTES = 1 << 20
problems: list[str] = []  # what was wrong with the settings file, said once by the window
_checked: set[str] = set()
_unwritable: set[str] = set()  # settings files a write failed on (said once a session each)
listeners: list[Callable[[str], None]] = []  # who says a problem found after the start (the window's status)


def settings() -> QSettings:
    path = os.environ.get("GPUVIZ_SETTINGS")
    first = _check_once(path or _platform_file())
    store = QSettings(path, QSettings.Format.IniFormat) if path else QSettings("gpuviz", "gpuviz")
    if first:
        store.allKeys()  # reads the file: a bad one shows in the status
        if store.status() == QSettings.Status.FormatError:
            _set_aside(store.fileName(), "not a settings file")
            store = QSettings(path, QSettings.Format.IniFormat) if path else QSettings("gpuviz", "gpuviz")
    return store


def _check_once(path: str | None) -> bool:
    """Qt reads a settings file whole and blocks on a fifo: a file that is not regular or is huge is set
    aside before Qt sees it (once a session; what is set aside stays aside). True the first time."""
    if not path or path in _checked:
        return False
    _checked.add(path)
    try:
        info = os.lstat(path)
    except OSError:
        return True
    if not stat.S_ISREG(info.st_mode):
        _set_aside(path, "not a regular file")
    elif info.st_size > MAX_SETTINGS_BYTES:
        _set_aside(path, f"over the limit of {MAX_SETTINGS_BYTES:,} bytes")
    return True


def _set_aside(path: str, reason: str) -> None:
    problems.append(f"settings file {path}: {reason}; {set_aside(path, reason)}; using the defaults")


def _platform_file() -> str | None:
    if sys.platform.startswith(("win", "darwin")):
        return None  # the registry, or a plist Qt reads itself
    config = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    return str(Path(config) / "gpuviz" / "gpuviz.conf") if config else None


def remember(**values) -> bool:
    """Keep these values in the settings, written now; False, said once a session, where the file cannot be
    written (a read-only or full disk, a file where its folder should be): the app goes on with them."""
    store = settings()
    for key, kept in values.items():
        store.setValue(key, kept)
    store.sync()
    if store.status() == QSettings.Status.NoError:
        return True
    path = store.fileName()
    if path not in _unwritable:
        _unwritable.add(path)
        text = f"settings file {path} cannot be written: what you change is used but not remembered"
        for listener in list(listeners):
            try:
                listener(text)
            except RuntimeError:  # a window already gone (its Qt object deleted)
                listeners.remove(listener)
        if not listeners:
            problems.append(text)
    return False


def value(key: str, default, kind: type):
    """A remembered value of `kind` (ini files give strings back), or the default."""
    raw = settings().value(key, default)
    try:
        return (raw in (True, "true", "1", 1)) if kind is bool else kind(raw)
    except (TypeError, ValueError):
        return default


def data_dir(*parts: str) -> Path:
    """A folder of the user's own (autosaves, copies of lessons, kept traces), made when missing and possible."""
    beside_settings = os.environ.get("GPUVIZ_SETTINGS") and Path(os.environ["GPUVIZ_SETTINGS"]).parent / "data"
    root = os.environ.get("GPUVIZ_DATA") or beside_settings or QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.AppDataLocation
    )
    folder = Path(root or Path.home() / ".gpuviz").joinpath(*parts)
    # a read-only disk or a file in the way: reading finds nothing, and each write says why in one line
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
    return folder
