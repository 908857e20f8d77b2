"""Every file gpuviz writes goes through here: a temporary file beside the target, flushed, synced,
checked, then renamed into place. A full disk or a bad target gives one line and leaves nothing behind.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from gpuviz.core.errors import GpuvizError


class WriteError(GpuvizError):
    """A file could not be written completely; the target is unchanged and no partial file is left."""


def write_file(path: str | Path, write: Callable[[BinaryIO], object], what: str = "file", durable: bool = True) -> Path:
    """Write `path` through `write(file)` so that it either holds everything or is left as it was.
    `durable=False` leaves out the fsync (for a file written again soon, synced then): a crash may then
    lose it, but no reader ever sees part of it, and the size check still runs."""
    with replaced(path, what, synced=True) as temporary:
        with _open_new(temporary) as stream:
            write(stream)
            stream.flush()
            written = stream.tell()
            if durable:
                os.fsync(stream.fileno())
            on_disk = os.fstat(stream.fileno()).st_size
        if on_disk != written:
            raise OSError(f"only {on_disk:,} of {written:,} bytes reached the disk")
    return Path(path)


def write_text(path: str | Path, text: str, what: str = "file") -> Path:
    return write_file(path, lambda stream: stream.write(text.encode("utf-8")), what)


@contextmanager
def replaced(path: str | Path, what: str = "file", check: Callable[[Path], str | None] | None = None,
             synced: bool = False) -> Iterator[Path]:  # fmt: skip
    """Yield a temporary path beside `path` for a writer that only takes file names (Qt); once it is
    written and `check(temporary)` finds nothing wrong (it returns the problem, or None), it is synced
    (unless the writer did: `synced`) and replaces `path`."""
    path = Path(path)
    _check_target(path, what)
    # the target's suffix last: writers that pick a format by the name (ffmpeg, Qt) still see it
    temporary = path.with_name(f".{path.stem}.{secrets.token_hex(4)}.partial{path.suffix}")
    try:
        yield temporary
        problem = _problem_with(temporary, check)
        if problem:
            raise OSError(problem)
        if not synced:
            _sync(temporary)
        os.replace(temporary, path)
    except OSError as exc:
        raise WriteError(f"cannot write the {what} {path}: {_reason(exc)}; nothing was written") from None
    finally:
        temporary.unlink(missing_ok=True)


def _check_target(path: Path, what: str) -> None:
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise WriteError(f"cannot write the {what} to {path}: it is {kind}; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"cannot write the {what} {path}: {_reason(exc)}") from None


def _problem_with(temporary: Path, check: Callable[[Path], str | None] | None) -> str | None:
    if not temporary.is_file():
        return "the writer created no file"
    if temporary.stat().st_size == 0:
        return "the file came out empty (is the disk full?)"
    return check(temporary) if check is not None else None


def _sync(path: Path) -> None:
    with open(path, "rb+") as stream:
        os.fsync(stream.fileno())


def _open_new(path: Path) -> BinaryIO:
    return open(path, "xb+")  # readable too: a zip archive is appended to by reading its directory


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__
