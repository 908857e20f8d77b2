"""Helpers to make damaged trace files from a good one (shared by the reader and fuzz tests)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np

import gpuviz

SRC = """from numba import cuda

@cuda.jit
def scale(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * 2
"""


def good_trace(folder: Path, repeat: int = 1) -> Path:
    a = np.arange(40, dtype=np.float32)
    trace = gpuviz.trace(SRC, backend="sim", sms=2, repeat=repeat)[2, 32](a, np.zeros(40, np.float32))
    return trace.save(folder / "good.npz")


def members(path: Path) -> dict[str, np.ndarray]:
    """The columns of a saved trace as a gpuviz-trace/2 file holds them (plain columns, every gpuviz
    reads them), so that damaging one damages what the reader checks after decoding any format."""
    from gpuviz.core.trace.codec import decode

    with np.load(path, allow_pickle=False) as npz:
        stored = {key: npz[key] for key in npz.files}
    columns = decode(stored, json.loads(str(stored["meta"])))
    columns["format"] = np.array("gpuviz-trace/2")
    for key in [k for k in columns if k.endswith(".before")]:  # /2 stored both snapshots
        columns.setdefault(key[: -len(".before")] + ".after", columns[key])
    return columns


def stored_members(path: Path) -> dict[str, np.ndarray]:
    """The members of a trace file as they are stored."""
    with np.load(path, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def write_members(path: Path, columns: dict[str, np.ndarray]) -> Path:
    np.savez(path, **columns)
    return path


def with_meta(columns: dict, **changes) -> dict:
    meta = json.loads(str(columns["meta"]))
    meta.update(changes)
    return {**columns, "meta": np.array(json.dumps(meta))}


def raw_member(header: dict, data: bytes) -> bytes:
    """A .npy member whose header may say anything about the data that follows."""
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, header)
    return stream.getvalue() + data


def write_raw(path: Path, columns: dict[str, np.ndarray], raw: dict[str, bytes], compress: bool = False) -> Path:
    """The trace's members, with some replaced by raw bytes (a lying header, a bomb)."""
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as archive:
        for key, values in columns.items():
            if key not in raw:
                stream = io.BytesIO()
                np.lib.format.write_array(stream, np.asanyarray(values), allow_pickle=False)
                archive.writestr(f"{key}.npy", stream.getvalue())
        for key, data in raw.items():
            archive.writestr(f"{key}.npy", data)
    return path
