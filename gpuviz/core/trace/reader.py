"""Reading a trace file: `load`, and the members of a file (.npz)
read without trusting it: every member's size comes from its
.npy header and the zip directory and is checked against the memory budget before anything is allocated.
Only plain arrays are read; a member holding Python objects is refused, never unpickled.
"""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpuviz.core.budget import default_memory_budget, format_bytes, format_over
from gpuviz.core.errors import GpuvizError, TraceFormatError
from gpuviz.core.trace.analysis_schema import DROPPED, MAX_ANALYSIS_BYTES
from gpuviz.core.trace.model import Trace
from gpuviz.core.trace.schema import trace_parts

MAX_MEMBERS = 4096  # a trace has a dozen columns plus two snapshots per array argument
HEADER_VERSIONS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
# What a damaged member can raise while its bytes are decompressed and parsed.
UNREADABLE = (ValueError, EOFError, SyntaxError, TypeError, RecursionError, OverflowError, zlib.error,
              NotImplementedError, RuntimeError, zipfile.BadZipFile)  # fmt: skip
THREAD_BYTES, ACCESS_BYTES = 52, 40  # a thread's and an access's columns in memory (core/trace/columns.py)
RAISE_BUDGET = "raise the budget with --max-memory or GPUVIZ_MEMORY_BUDGET"


class OverBudget(GpuvizError):
    """Reading the file would take more memory than the budget allows."""


@dataclass(frozen=True)
class Member:
    """One array of the file as its header describes it (nothing read yet)."""

    name: str  # without ".npy"
    shape: tuple[int, ...]
    dtype: np.dtype
    info: zipfile.ZipInfo

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def read_members(path: str | Path, memory_budget: int | None = None) -> dict[str, np.ndarray]:
    """Every array of the file, after checking all their headers and their total size."""
    path = Path(path)
    budget = default_memory_budget() if memory_budget is None else memory_budget
    try:
        with zipfile.ZipFile(path) as archive:
            members = [_member(archive, info, path.name) for info in _infos(archive, path.name)]
            left, members = _left_unread(members)
            _check_budget(members, budget, path.name)
            return {**{m.name: _read(archive, m, path.name) for m in members}, **left}
    except GpuvizError:
        raise
    except UNREADABLE as exc:
        raise TraceFormatError(f"{path.name} is not a gpuviz trace (.npz of arrays): {_zip_reason(exc)}") from None
    except OSError as exc:
        raise TraceFormatError(f"cannot read {path}: {exc.strerror or exc}") from None


def _infos(archive: zipfile.ZipFile, name: str) -> list[zipfile.ZipInfo]:
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise TraceFormatError(f"{name}: {len(infos):,} members; a trace has at most {MAX_MEMBERS:,}")
    for info in infos:
        if not info.filename.endswith(".npy"):
            raise TraceFormatError(f"{name}: member {info.filename!r} is not a NumPy array (.npy)")
    return infos


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> Member:
    label = info.filename[:-4]
    try:
        with archive.open(info) as stream:
            version = np.lib.format.read_magic(stream)
            if version not in HEADER_VERSIONS:
                raise ValueError(f"header version {version} is not one NumPy writes for gpuviz")
            shape, _, dtype = HEADER_VERSIONS[version](stream)
            header_size = stream.tell()
    except UNREADABLE as exc:
        raise TraceFormatError(f"{name}: member {label!r} has a broken array header ({_first_line(exc)})") from None
    if dtype.hasobject:
        raise TraceFormatError(f"{name}: member {label!r} holds Python objects, which gpuviz never writes or reads")
    member = Member(label, tuple(int(n) for n in shape), dtype, info)
    stored = info.file_size - header_size
    if member.nbytes != stored:
        raise TraceFormatError(
            f"{name}: member {label!r} claims {format_bytes(member.nbytes)} of data but holds {format_bytes(stored)}"
        )
    return member


def _left_unread(members: list[Member]) -> tuple[dict[str, np.ndarray], list[Member]]:
    """An analysis member declaring more than any analysis takes is not inflated: the schema drops it
    with one line (analysis_schema.py), and the analysis is worked out again."""
    left = {}
    for member in members:
        if member.name == "analysis" and member.nbytes > MAX_ANALYSIS_BYTES:
            limit = format_bytes(MAX_ANALYSIS_BYTES)
            why = f"it declares {format_bytes(member.nbytes)}, over the {limit} an analysis may take"
            left[member.name] = np.array(json.dumps({DROPPED: why}))
    return left, [member for member in members if member.name not in left]


def _check_budget(members: list[Member], budget: int, name: str) -> None:
    total = sum(m.nbytes for m in members) + _decoded_extra(members)
    if total > budget:
        need, have = format_over(total, budget)
        raise OverBudget(f"{name} needs {need} in memory, over the memory budget of {have}; {RAISE_BUDGET}")


def _decoded_extra(members: list[Member]) -> int:
    """What decoding a gpuviz-trace/3 file adds to its members' size: its narrowed columns widen
    (core/trace/codec.py) and its layout columns are derived, per thread and per access at most this."""
    rows = {m.name: m.shape[0] if m.shape else 0 for m in members}
    return THREAD_BYTES * rows.get("thread.sm", 0) + ACCESS_BYTES * rows.get("access.site", 0)


def _read(archive: zipfile.ZipFile, member: Member, name: str) -> np.ndarray:
    try:
        with archive.open(member.info) as stream:
            return np.lib.format.read_array(stream, allow_pickle=False)
    except UNREADABLE as exc:
        raise TraceFormatError(f"{name}: member {member.name!r} cannot be read ({_first_line(exc)})") from None


def _zip_reason(exc: Exception) -> str:
    text = _first_line(exc)
    return "not a zip archive" if text == "File is not a zip file" else text


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def load(path: str | Path, memory_budget: int | None = None) -> Trace:
    """Read a trace file written by any gpuviz that wrote a format listed in READABLE_FORMATS.

    Nothing in the file is trusted: sizes are checked against the memory budget (core/budget.py)
    before anything is read (read_members above), every field and column against the schema before
    the Trace is built (core/trace/schema.py). Any problem is one TraceFormatError line.
    """
    path = Path(path)
    if path.is_dir():
        raise TraceFormatError(f"{path} is a folder; give a trace file in it (gpuviz run writes NNN-kernel.npz)")
    if not path.is_file():
        raise TraceFormatError(f"no trace file at {path}")
    return Trace(**trace_parts(read_members(path, memory_budget), path.name))


