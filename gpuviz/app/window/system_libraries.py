"""Before Qt starts on a Linux desktop: the one system library a stock install most often lacks
(libxcb-cursor, which Qt 6.5+ needs for its xcb platform) gets one line saying what to install,
instead of Qt's abort. Imports no Qt."""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Callable, Mapping

APT = ("sudo apt install libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-randr0 "
       "libxcb-render-util0 libxcb-xinerama0 libxcb-image0 libegl1 libgl1 libfontconfig1 libdbus-1-3")
DNF = ("sudo dnf install xcb-util-cursor libxkbcommon-x11 xcb-util-wm xcb-util-keysyms xcb-util-renderutil "
       "xcb-util-image mesa-libEGL mesa-libGL fontconfig dbus-libs")


def missing_xcb_line(environ: Mapping[str, str] = os.environ, platform: str = sys.platform,
                     find: Callable[[str], str | None] = ctypes.util.find_library) -> str | None:  # fmt: skip
    """One line naming the packages to install when Qt's xcb platform would fail to load; else None."""
    on_x11 = platform.startswith("linux") and environ.get("DISPLAY") and not environ.get("QT_QPA_PLATFORM")
    if not on_x11 or find("xcb-cursor"):
        return None
    return f"gpuviz: the app needs libxcb-cursor and Qt's other X11 libraries; install them: {APT}  (Fedora: {DNF})"
