"""Where the app remembers things: QSettings (GPUVIZ_SETTINGS names an ini file, for tests and
portable installs) and a folder for the user's own files (GPUVIZ_DATA; else beside GPUVIZ_SETTINGS's
file when that is set, so a separate settings file never shares autosaves; else the platform's)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths


def settings() -> QSettings:
    path = os.environ.get("GPUVIZ_SETTINGS")
    return QSettings(path, QSettings.Format.IniFormat) if path else QSettings("gpuviz", "gpuviz")


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
