"""Writing a trace file: an .npz whose members are deflated the way each column pays for, big ones on threads.

The standard library has no public way to hand zipfile a member deflated ahead of time, so this module
(and only this one) sets the private `_compressor` of zipfile's member writer and, before Python 3.13,
`ZipInfo._compresslevel`. `private_api_present()` says whether they are still there; a test fails loudly
when a Python upgrade removes them (the writer would then fall back to zipfile's own deflater).
"""

from __future__ import annotations

import os
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

COMPRESS_LEVEL = 1  # zlib: most of level 9's size at a fraction of its time (docs/performance.md)

def write_npz(stream, columns: dict[str, np.ndarray], level: int = COMPRESS_LEVEL) -> None:
    """An .npz as np.savez_compressed writes it (one .npy member per column), at a chosen zlib level.
    Each member is deflated the way a sample from its start says pays (`_packing`): fully, by
    Huffman codes alone, or not at all. Every member is plain deflate or stored: any zip reader reads it.
    Big members are deflated on several threads at once (zlib lets go of the GIL), a few members ahead
    of the one being written (so deflated data waiting in memory stays bounded), then written in order."""
    arrays = {name: np.asanyarray(values) for name, values in columns.items()}
    packings = {name: _packing(values, level) for name, values in arrays.items()}
    big = [name for name, values in arrays.items() if values.nbytes >= PARALLEL_BYTES and packings[name] != STORED]
    workers = max(1, min(len(big), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        ahead: dict[str, object] = {}
        waiting = list(reversed(big))

        def deflate_ahead() -> None:  # the next member always; more while all ahead fit PARALLEL_WINDOW
            while waiting and (not ahead or sum(arrays[n].nbytes for n in ahead) + arrays[waiting[-1]].nbytes
                               <= PARALLEL_WINDOW):  # fmt: skip
                name = waiting.pop()
                ahead[name] = pool.submit(_deflate_member, arrays[name], packings[name], level)

        deflate_ahead()
        with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
            for name, values in arrays.items():
                write_member(archive, name, values, packings[name], level, ahead.pop(name, None))
                deflate_ahead()


PARALLEL_BYTES = 1 << 20  # members this big are deflated ahead, on threads, ...
PARALLEL_WINDOW = 3 << 27  # ... as long as those ahead of the one being written come to 384 MiB at most


def write_member(archive: zipfile.ZipFile, name: str, values: np.ndarray, packing: str, level: int,
                  deflated=None) -> None:  # fmt: skip
    info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED if packing == STORED else zipfile.ZIP_DEFLATED
    _set_level(info, level)
    with archive.open(info, "w", force_zip64=True) as member:
        if deflated is not None and hasattr(member, "_compressor"):  # zipfile still counts the CRC and size
            member._compressor = _Deflated(deflated.result())
        elif packing == HUFFMAN and hasattr(member, "_compressor"):  # zipfile's own deflater otherwise
            member._compressor = _deflater(HUFFMAN, level)
        np.lib.format.write_array(member, values, allow_pickle=False)


def _deflate_member(values: np.ndarray, packing: str, level: int) -> bytes:
    """The member's .npy bytes, deflated as zipfile would (raw deflate), chunk by chunk."""
    sink = _DeflatingSink(_deflater(packing, level))
    np.lib.format.write_array(sink, values, allow_pickle=False)
    return b"".join(sink.parts) + sink.deflater.flush()


class _DeflatingSink:
    """A write-only stream that deflates what it is given (no copy of the whole member is kept)."""

    def __init__(self, deflater) -> None:
        self.deflater, self.parts = deflater, []

    def write(self, data: bytes) -> int:
        self.parts.append(self.deflater.compress(data))
        return len(data)


def _deflater(packing: str, level: int):
    strategy = zlib.Z_HUFFMAN_ONLY if packing == HUFFMAN else zlib.Z_DEFAULT_STRATEGY
    return zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)


class _Deflated:
    """A stand-in for zipfile's deflater that gives back a member deflated ahead of time."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def compress(self, _raw: bytes) -> bytes:
        return b""

    def flush(self) -> bytes:
        data, self._data = self._data, b""
        return data


def private_api_present() -> bool:
    """Whether zipfile still has what the writer relies on: a member writer with a `_compressor` it
    deflates through, and a level on ZipInfo (public `compress_level` from 3.13, else `_compresslevel`)."""
    import io

    info = zipfile.ZipInfo("probe.npy")
    info.compress_type = zipfile.ZIP_DEFLATED
    has_compressor = False
    try:
        with zipfile.ZipFile(io.BytesIO(), "w") as archive, archive.open(info, "w") as member:
            has_compressor = hasattr(member, "_compressor")
    except (AttributeError, TypeError):  # a zipfile whose writer no longer works as this module expects
        has_compressor = False
    has_level = hasattr(info, "compress_level") or hasattr(info, "_compresslevel")
    return has_compressor and has_level


def _set_level(info: zipfile.ZipInfo, level: int) -> None:
    try:
        info.compress_level = level  # Python 3.13 and later
    except AttributeError:
        info._compresslevel = level


# How a member is written. Deflate's string matching is what makes repetitive columns tiny (ones:
# 0.5% of their size) but it runs at 35-50 MB/s on data it cannot shrink much, such as random
# floats (90%); Huffman codes alone shrink those as much at three times the speed (docs/performance.md).
DEFLATED, HUFFMAN, STORED = "deflated", "huffman", "stored"


def _packing(values: np.ndarray, level: int, sample: int = 1 << 16) -> str:
    """Deflated where a sample from the column's start shrinks to half or less, else Huffman-coded
    where that shrinks it by a tenth or more, else stored (a member the sample cannot judge: deflated)."""
    if values.dtype.kind not in "biufc" or values.nbytes <= sample:
        return DEFLATED
    head = np.ascontiguousarray(values.reshape(-1)[: sample // values.itemsize]).tobytes()
    if len(zlib.compress(head, level)) < 0.5 * len(head):
        return DEFLATED
    huffman = zlib.compressobj(level, zlib.DEFLATED, -15, 8, zlib.Z_HUFFMAN_ONLY)
    return HUFFMAN if len(huffman.compress(head) + huffman.flush()) < 0.9 * len(head) else STORED


