"""Reading the user's own files (progress, autosaves, copies of lessons) so that nothing in them can stop
the app: a file is read only when it is a regular file (never a link followed, never a fifo or device
that would block), under a size limit the message names, and as UTF-8 text or JSON; a file that fails is
set aside under a name that says when and why (never deleted), or, where its folder cannot be written,
left in place and ignored for the session."""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path

from gpuviz.core.errors import GpuvizError

MAX_BYTES = 4 << 20  # far above any progress book or autosave a person makes; a read of it is instant


class UnreadableFile(GpuvizError):
    """A user file that cannot be used: `reason` is the short why (also in its set-aside name)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = Path(path), reason


def read_text(path: str | Path, limit: int = MAX_BYTES, follow: bool = False) -> str | None:
    """The file's text; None when there is none; UnreadableFile when it is not a readable text file.
    `follow`: a link to a regular file is read (a teacher's folder may link its lessons); a loop is not."""
    path = Path(path)
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        if follow and os.path.lexists(path):
            raise UnreadableFile(path, "it is a link to nothing") from None
        return None
    except OSError as exc:
        raise UnreadableFile(path, _reason(exc)) from None
    _check_kind(path, info.st_mode)
    if info.st_size > limit:
        raise UnreadableFile(path, f"it is {info.st_size:,} bytes, over the limit of {limit:,} bytes")
    try:
        # O_NONBLOCK and O_NOFOLLOW: a fifo or link swapped in after the lstat still never blocks or is followed
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | (0 if follow else getattr(os, "O_NOFOLLOW", 0)))
    except OSError as exc:
        raise UnreadableFile(path, _reason(exc)) from None
    with os.fdopen(fd, "rb") as stream:
        _check_kind(path, os.fstat(stream.fileno()).st_mode)
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise UnreadableFile(path, f"it is over the limit of {limit:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(path, f"not UTF-8 text (byte {exc.start:,})") from None


def read_json(path: str | Path, limit: int = MAX_BYTES):
    """The file's JSON value; None when there is no file; UnreadableFile when it is not JSON."""
    text = read_text(path, limit)
    if text is None:
        return None
    try:
        return json.loads(text)
    except RecursionError:
        raise UnreadableFile(Path(path), "JSON nested too deep") from None
    except ValueError as exc:
        raise UnreadableFile(Path(path), f"not JSON ({exc})") from None


def set_aside(path: str | Path, reason: str) -> str:
    """Move a bad file (or link, or folder) out of the way, named by when and why; the words to add to
    a status line. Where it cannot be moved it stays, and the words say it is ignored this session."""
    path = Path(path)
    why = re.sub(r"[^a-z0-9]+", "-", reason.lower()).strip("-")[:40] or "bad"
    aside = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}-{why}")
    try:
        if os.path.lexists(aside):
            raise FileExistsError(f"{aside.name} is there already")
        os.rename(path, aside)  # rename moves a link itself, never what it points to
    except OSError as exc:
        return f"left in place ({_reason(exc)}) and ignored this session"
    return f"moved aside as {aside.name}"


def problem_line(exc: UnreadableFile, what: str) -> str:
    """One status line for a bad file, after setting it aside."""
    return f"{what} {exc.path} could not be read ({exc.reason}); {set_aside(exc.path, exc.reason)}"


def _check_kind(path: Path, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISLNK(mode):
        raise UnreadableFile(path, "it is a link (not followed)")
    if stat.S_ISDIR(mode):
        raise UnreadableFile(path, "it is a folder, not a file")
    raise UnreadableFile(path, "it is not a regular file (a fifo, socket or device)")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__
