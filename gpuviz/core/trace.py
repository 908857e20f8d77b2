"""The trace of one instrumented launch: what every thread was and did. Saved as a pickle-free .npz."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpuviz.core.errors import TraceFormatError
from gpuviz.core.files import write_file

FORMAT = "gpuviz-trace/3"
# /2: meta "param_names" (was "args"), an "analysis" member (per-launch analysis, computed once).
# /3: columns stored narrowed and deflated, layout columns derived on load (core/trace_codec.py).
READABLE_FORMATS = ("gpuviz-trace/1", "gpuviz-trace/2", "gpuviz-trace/3")
COMPRESS_LEVEL = 1  # zlib: most of level 9's size at a fraction of its time (docs/performance.md)

THREAD_COLUMNS = {
    "block_idx": np.int32,
    "thread_idx": np.int32,
    "warp": np.int32,
    "lane": np.int32,
    "sm": np.int32,
    "t_start": np.int64,
    "t_end": np.int64,
}

# One memory access a row; rows are stored in the order the accesses happened (the order key).
ACCESS_COLUMNS = {
    "thread": np.int32,  # global linear thread id
    "array": np.int16,  # index into meta["arrays"]
    "index": np.int64,  # element, as a C-order linear index into the array's shape
    "kind": np.int8,  # READ, WRITE or ATOMIC
    "line": np.int32,  # source line in the user's file
    "epoch": np.int32,  # barriers the thread had passed, in three fields (EPOCH_FIELDS below)
    "value": np.float64,  # value read or written (atomics: the value after the update)
}
# Columns a backend may add: "time" is when the access was issued, in meta["time_unit"].
OPTIONAL_ACCESS_COLUMNS = {"time": np.int64}
READ, WRITE, ATOMIC = 0, 1, 2
# "epoch" packs three counters, each kept modulo its width (a wrapped counter makes two accesses look
# unordered, never ordered: the analysis may then over-report a race, never miss one):
# block barriers (syncthreads, and grid syncs) in bits 0-15, grid-wide barriers in bits 16-23, and
# whole-warp syncwarps in bits 24-30. A backend that counts only block barriers writes plain counts.
EPOCH_FIELDS = {"block": (0, 16), "grid": (16, 8), "warp": (24, 7)}  # name: (first bit, width)
GRID_EPOCH = 1 << 16


def epoch_field(epoch, name: str):
    """One counter of the packed epoch (works on ints and arrays)."""
    shift, width = EPOCH_FIELDS[name]
    return (epoch >> shift) & ((1 << width) - 1)


def set_epoch(epoch: int, name: str, value: int) -> int:
    """The epoch with one counter set to value (modulo its width)."""
    shift, width = EPOCH_FIELDS[name]
    mask = ((1 << width) - 1) << shift
    return (epoch & ~mask) | ((value << shift) & mask)


def bump_epoch(epoch: int, *names: str) -> int:
    """The epoch with these counters one higher (each wraps within its field, never carrying)."""
    for name in names:
        shift, width = EPOCH_FIELDS[name]
        mask = ((1 << width) - 1) << shift
        epoch = (epoch & ~mask) | ((epoch + (1 << shift)) & mask)
    return epoch
KIND_NAMES = ("read", "write", "atomic")


@dataclass
class Trace:
    """One launch: meta (JSON-able dict), per-thread columns, argument snapshots, the access log."""

    meta: dict
    threads: dict[str, np.ndarray]
    args: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    accesses: dict[str, np.ndarray] | None = None
    # Optional, from repeated runs: "<array>.runs" (runs x shape), "<array>.lost", "<array>.sequential",
    # "<array>.reversed" (one thread at a time, in thread order and in reverse).
    outcomes: dict[str, np.ndarray] = field(default_factory=dict)
    # What the run computed once about the launch (JSON-able; e.g. "races"): read it, never recompute it.
    analysis: dict = field(default_factory=dict)
    # Memory errors (out-of-bounds, uninitialised shared reads, barrier divergence), the first ones in
    # full: {"kind", "thread" (global id), "line", "array", "element"}; meta["error_count"] counts all.
    errors: list[dict] = field(default_factory=list)

    @property
    def error_count(self) -> int:
        return int(self.meta.get("error_count", len(self.errors)))

    @property
    def kernel(self) -> str:
        return self.meta["kernel"]

    @property
    def grid(self) -> tuple[int, int, int]:
        return tuple(self.meta["grid"])

    @property
    def block(self) -> tuple[int, int, int]:
        return tuple(self.meta["block"])

    @property
    def n_threads(self) -> int:
        return len(self.threads["warp"])

    @property
    def param_names(self) -> list[str]:
        """The kernel's parameters in order (array arguments have snapshots in `args`)."""
        return list(self.meta.get("param_names", []))

    @property
    def device_facts(self) -> dict:
        """The device the launch ran on: name, sm_count, warp_size, residency limits."""
        return dict(self.meta.get("device_facts", {}))

    @property
    def truncated(self) -> bool:
        return bool(self.meta.get("truncated", False))

    def before(self, name: str) -> np.ndarray:
        return self.args[name][0]

    def after(self, name: str) -> np.ndarray:
        return self.args[name][1]

    def block_linear(self, block) -> int:
        """Linear number of a block given by its (x, y, z) blockIdx."""
        gx, gy, _ = self.grid
        return int(block[0] + block[1] * gx + block[2] * gx * gy)

    def global_id(self, block, thread) -> int:
        """Global linear id of a thread given by its blockIdx and threadIdx."""
        bx, by, _ = self.block
        thread_linear = int(thread[0] + thread[1] * bx + thread[2] * bx * by)
        return self.block_linear(block) * int(np.prod(self.block)) + thread_linear

    def array_names(self) -> list[str]:
        return [a["name"] for a in self.meta.get("arrays", [])]

    def _repr_html_(self) -> str:  # a notebook shows a trace as its summary and its grid
        from gpuviz.core.display import summary_html

        return summary_html(self)

    def _repr_png_(self) -> bytes | None:
        from gpuviz.core.display import picture_png

        return picture_png(self)

    def save(self, path: str | Path, durable: bool = True) -> Path:
        """Write the trace file whole or not at all (core/files.py); a failure is one WriteError line.
        `durable=False` skips the fsync, for a file that is written again soon (core/files.py)."""
        from gpuviz.core.trace_codec import encode

        columns = {"format": np.array(FORMAT), "meta": np.array(json.dumps(self.meta))}
        if self.analysis:
            columns["analysis"] = np.array(json.dumps(self.analysis))
        if self.errors:
            columns["errors"] = np.array(json.dumps(self.errors))
        for name, (before, after) in self.args.items():
            columns[f"arg.{name}.before"] = before
            if not _unchanged(before, after):
                columns[f"arg.{name}.after"] = after  # an input the kernel left alone is stored once
        for name, values in self.outcomes.items():
            columns[f"outcome.{name}"] = values
        accesses = None if self.accesses is None else dict(self.accesses)
        columns.update(encode(self.threads, accesses, self.meta.get("arrays", [])))
        return write_file(path, lambda stream: write_npz(stream, columns), "trace", durable)

    def save_analysis(self, path: str | Path, durable: bool = True) -> Path:
        """Write the trace file again with its analysis, where `path` holds this trace as `save` wrote
        it without one: its members are copied as they are and the analysis added, so the arrays are
        not compressed a second time (seconds for a launch of millions of threads)."""

        def copy_and_add(stream) -> None:
            try:  # appending to anything but a whole trace file would leave junk with a zip behind it
                with zipfile.ZipFile(path) as archive:
                    whole = {"format.npy", "meta.npy"} <= set(archive.namelist())
            except zipfile.BadZipFile:
                whole = False
            if not whole:
                raise OSError("it is not a whole trace file")
            with open(path, "rb") as written:
                shutil.copyfileobj(written, stream, 1 << 22)
            stream.seek(0)
            with zipfile.ZipFile(stream, "a", zipfile.ZIP_DEFLATED, compresslevel=COMPRESS_LEVEL) as archive:
                if "analysis.npy" in archive.namelist():
                    raise OSError("the file already holds an analysis")
                _write_member(archive, "analysis", np.array(json.dumps(self.analysis)), DEFLATED, COMPRESS_LEVEL)
            stream.seek(0, os.SEEK_END)

        return write_file(path, copy_and_add, "trace", durable)


def _unchanged(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether a snapshot after the launch holds what it held before. Compared bit for bit where both
    are plain arrays of one layout (one pass, NaNs included; a 0.0 written over -0.0 then counts as a
    change, which only stores the array twice), else value by value as before."""
    if after is before:
        return True
    plain = before.flags.c_contiguous and after.flags.c_contiguous and not before.dtype.hasobject
    if after.dtype != before.dtype or after.shape != before.shape or not plain:
        return np.array_equal(after, before, equal_nan=before.dtype.kind in "fc")
    return np.array_equal(_words(before), _words(after))


def _words(array: np.ndarray) -> np.ndarray:
    """A contiguous array's bytes as the widest unsigned words that tile it (fewer, faster compares)."""
    flat = array.reshape(-1).view(np.uint8)
    for word in (np.uint64, np.uint32, np.uint16):
        if flat.nbytes % np.dtype(word).itemsize == 0:
            return flat.view(word)
    return flat


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
                _write_member(archive, name, values, packings[name], level, ahead.pop(name, None))
                deflate_ahead()


PARALLEL_BYTES = 1 << 20  # members this big are deflated ahead, on threads, ...
PARALLEL_WINDOW = 3 << 27  # ... as long as those ahead of the one being written come to 384 MiB at most


def _write_member(archive: zipfile.ZipFile, name: str, values: np.ndarray, packing: str, level: int,
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


def load(path: str | Path, memory_budget: int | None = None) -> Trace:
    """Read a trace file written by any gpuviz that wrote a format listed in READABLE_FORMATS.

    Nothing in the file is trusted: sizes are checked against the memory budget (core/budget.py)
    before anything is read (core/trace_file.py), every field and column against the schema before
    the Trace is built (core/trace_schema.py). Any problem is one TraceFormatError line.
    """
    from gpuviz.core.trace_file import read_members
    from gpuviz.core.trace_schema import trace_parts

    path = Path(path)
    if not path.is_file():
        raise TraceFormatError(f"no trace file at {path}")
    return Trace(**trace_parts(read_members(path, memory_budget), path.name))


def new_trace(
    *,
    source,
    config,
    backend: str,
    device_facts: dict,
    time_unit: str,
    param_names: list[str],
    values: tuple,
    snapshots: dict[str, tuple[np.ndarray, np.ndarray]],
    arrays: list[dict],
    threads: dict[str, np.ndarray],
    accesses: dict[str, np.ndarray] | None,
    level: str,
    schedule: str,
    seed: int | None = None,
    truncated: bool = False,
    warnings: list[str] | None = None,
    seconds: float = 0.0,
    errors: list[dict] | None = None,
    error_count: int | None = None,
    printed: list[dict] | None = None,
    unrecorded: list[str] | None = None,
    partial_syncwarps: list | str | None = None,
    time_source: str | None = None,
    times_inferred: bool = False,
    kernel_facts: dict | None = None,
) -> Trace:
    """The one place a trace's meta is written, whichever backend ran the launch.

    `source` is the kernel's source (name, text, filename, first_line, last_line); `values` are the
    arguments as passed (real scalars are kept in the meta); `device_facts` come from the backend;
    `errors` are the launch's memory errors (the first ones in full), `error_count` counts them all;
    `printed` is what threads printed ({"thread", "line", "text"}), kept in meta["printed"];
    `unrecorded` says, in words, which accesses the kernel made that the trace does not hold;
    `partial_syncwarps` lists syncwarps of part of a warp ([first thread of the warp, block epoch,
    [[lane, warp epoch] of each live lane left out]]), or "too many", for the race analysis;
    `kernel_facts` are what the compiler says of the kernel (registers_per_thread,
    shared_bytes_per_block, local_bytes_per_thread), kept as meta keys for the occupancy analysis.
    """
    meta = {
        "kernel": source.name,
        "source": source.text,
        "source_file": source.filename,
        "source_lines": [source.first_line, source.last_line],
        "grid": list(config.grid),
        "block": list(config.block),
        "backend": backend,
        "device": device_facts["name"],
        "device_facts": device_facts,
        "sm_count": device_facts["sm_count"],
        "warp_size": device_facts["warp_size"],
        "time_unit": time_unit,
        "time_source": time_source,  # cost-model, scheduler-steps or globaltimer (docs/trace-format.md)
        "times_inferred": bool(times_inferred),
        "launch": 0,
        "param_names": list(param_names),
        "scalars": {n: v for n, v in ((n, _real_scalar(v)) for n, v in zip(param_names, values)) if v is not None},
        "arrays": arrays,
        "level": level,
        "schedule": schedule,
        "seed": seed,
        "truncated": bool(truncated),
        "warnings": list(warnings or []),
        "seconds": max(0.0, float(seconds)),  # a timer of numba's CUDA simulator can run backwards
        "error_count": int(error_count if error_count is not None else len(errors or [])),
    }
    meta.update({key: int(value) for key, value in (kernel_facts or {}).items()})
    if printed:
        meta["printed"] = list(printed)
    if unrecorded:
        meta["unrecorded"] = list(unrecorded)
    if partial_syncwarps:
        meta["partial_syncwarps"] = partial_syncwarps
    return Trace(meta=meta, threads=threads, args=snapshots, accesses=accesses, errors=list(errors or []))


def _real_scalar(value):
    """A real scalar argument as a JSON value; None for arrays, complex numbers and other objects."""
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    return None


def thread_layout(grid: tuple[int, int, int], block: tuple[int, int, int], warp_size: int = 32):
    """block_idx, thread_idx, warp and lane of every thread, in global linear order."""
    gx, gy, gz = grid
    bx, by, bz = block
    per_block = bx * by * bz
    n_blocks = gx * gy * gz
    b = np.arange(n_blocks, dtype=np.int64)
    t = np.arange(per_block, dtype=np.int64)
    block_idx = np.stack([b % gx, (b // gx) % gy, b // (gx * gy)], axis=1).astype(np.int32)
    thread_idx = np.stack([t % bx, (t // bx) % by, t // (bx * by)], axis=1).astype(np.int32)
    return (
        np.repeat(block_idx, per_block, axis=0),
        np.tile(thread_idx, (n_blocks, 1)),
        np.tile((t // warp_size).astype(np.int32), n_blocks),
        np.tile((t % warp_size).astype(np.int32), n_blocks),
    )
