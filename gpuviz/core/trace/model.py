"""The trace of one instrumented launch: what every thread was and did, and its one constructor."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpuviz.core.errors import PartlySavedError
from gpuviz.core.files import write_file
from gpuviz.core.trace.columns import FORMAT
from gpuviz.core.trace.writer import COMPRESS_LEVEL, DEFLATED, write_member, write_npz


@dataclass(eq=False)
class Trace:
    """One launch: meta (JSON-able dict), per-thread columns, argument snapshots, the access log.
    Two traces are equal only when they are the same object (their columns are arrays)."""

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
    # The warp request (core/analysis/requests.py) of every access-log row, where the engine that logged
    # them knew it (the vector engine, the fast path). Derived, never saved: without it the analysis groups
    # the rows.
    requests: np.ndarray | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        """One line (the REPL's echo of a trace): which launch, how big, what was recorded; the columns are
        the attributes'."""
        accesses = "no access log" if self.accesses is None else f"{len(self.accesses['thread']):,} accesses"
        errors = f", {self.error_count:,} memory errors" if self.error_count else ""
        return (f"<Trace {self.meta.get('kernel', '?')} grid={self.grid} block={self.block} "
                f"threads={self.n_threads:,} backend={self.meta.get('backend', '?')} "
                f"level={self.meta.get('level', '?')}: {accesses}{errors}>")  # fmt: skip

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

    def save(self, path: str | Path, durable: bool = True) -> Path:
        """Write the trace file whole or not at all (core/files.py); a failure to write is one WriteError
        line. A part that cannot be encoded (an argument, the access log) is left out of the file, which
        says so in its warnings, and PartlySavedError names it once the rest is written; the Trace in
        memory keeps everything. `durable=False` skips the fsync, for a file that is written again soon."""
        columns, left_out = self._columns()
        written = write_file(path, lambda stream: write_npz(stream, columns), "trace", durable)
        if left_out:
            raise PartlySavedError(f"trace {written} was saved without {'; '.join(left_out)}: they could not be "
                                   f"written; the launch's whole record stays in memory", written)  # fmt: skip
        return written

    def _columns(self) -> tuple[dict[str, np.ndarray], list[str]]:
        """The file's members, and what could not be encoded (each part named, with why)."""
        left_out: list[str] = []
        columns: dict[str, np.ndarray] = {}

        def kept(what: str, encode) -> None:
            try:
                columns.update(encode())
            except Exception as exc:  # noqa: BLE001 - whatever a part fails with, the other parts are saved
                left_out.append(f"{what} ({type(exc).__name__}: {exc})")

        for name, (before, after) in self.args.items():
            kept(f"argument {name}", lambda before=before, after=after, name=name: _snapshot(name, before, after))
        for name, values in self.outcomes.items():
            kept(f"outcome {name}", lambda name=name, values=values: {f"outcome.{name}": _plain_array(values)})
        kept("the access log", lambda: self._encoded(self.accesses))
        if left_out and left_out[-1].startswith("the access log"):
            kept("the thread columns", lambda: self._encoded(None))
        meta = dict(self.meta, warnings=[*self.meta.get("warnings", []), *(f"not saved: {w}" for w in left_out)])
        columns = {"format": np.array(FORMAT), "meta": np.array(json.dumps(meta)), **columns}
        if self.analysis:
            columns["analysis"] = np.array(json.dumps(self.analysis))
        if self.errors:
            columns["errors"] = np.array(json.dumps(self.errors))
        return columns, left_out

    def _encoded(self, accesses: dict[str, np.ndarray] | None) -> dict[str, np.ndarray]:
        from gpuviz.core.trace.codec import encode

        return encode(self.threads, None if accesses is None else dict(accesses), self.meta.get("arrays", []))

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
                write_member(archive, "analysis", np.array(json.dumps(self.analysis)), DEFLATED, COMPRESS_LEVEL)
            stream.seek(0, os.SEEK_END)

        return write_file(path, copy_and_add, "trace", durable)


def _snapshot(name: str, before: np.ndarray, after: np.ndarray) -> dict[str, np.ndarray]:
    columns = {f"arg.{name}.before": _plain_array(before)}
    if not _unchanged(before, after):
        columns[f"arg.{name}.after"] = _plain_array(after)  # an input the kernel left alone is stored once
    return columns


def _plain_array(values: np.ndarray) -> np.ndarray:
    """An array the file format can hold (numbers or records, no Python objects)."""
    values = np.asanyarray(values)
    if values.dtype.hasobject:
        raise TypeError(f"an array of Python objects ({values.dtype}) cannot be saved")
    return values


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
    modelled: list[dict] | None = None,
    partial_syncwarps: list | str | None = None,
    counting_lines: list[int] | None = None,
    warp_sync_divergence: int | None = None,
    time_source: str | None = None,
    times_inferred: bool = False,
    kernel_facts: dict | None = None,
    host_copies: list[dict] | None = None,
    local_types: dict[str, str] | None = None,
    requests: np.ndarray | None = None,
) -> Trace:
    """The one place a trace's meta is written, whichever backend ran the launch.

    `source` is the kernel's source (name, text, filename, first_line, last_line); `values` are the
    arguments as passed (real scalars are kept in the meta); `device_facts` come from the backend;
    `errors` are the launch's memory errors (the first ones in full), `error_count` counts them all;
    `printed` is what threads printed ({"thread", "line", "text"}), kept in meta["printed"];
    `unrecorded` says, in words, which accesses the kernel made that the trace does not hold;
    `modelled` lists the library calls that ran as gpuviz's models ({"line", "call", "model"} each);
    `partial_syncwarps` lists syncwarps of part of a warp ([first thread of the warp, block epoch,
    [[lane, warp epoch] of each live lane left out]]), or "too many", for the race analysis;
    `counting_lines` names the lines whose atomics add a positive constant, where the log's order of two
    atomics of one element is not theirs (a GPU's): the race analysis orders such updates by their values;
    `warp_sync_divergence` counts warps where a lane of a syncwarp's mask never reached a matching one (the
    simulator judges it: core/analysis/warp_sync.py; None where a backend cannot see it);
    `kernel_facts` are what the compiler says of the kernel (registers_per_thread,
    shared_bytes_per_block, local_bytes_per_thread), kept as meta keys for the occupancy analysis;
    `host_copies` are the host arrays copied in before the launch and back after it (core/copies.py);
    `local_types` name the type of each local of the kernel (`acc`: "float64"; a device function's as
    `warp_sum.v`), where the backend knows them; `requests` the warp request of every access, where
    the engine knew them (Trace.requests).
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
    if modelled:
        meta["modelled"] = [dict(call) for call in modelled]
    if partial_syncwarps:
        meta["partial_syncwarps"] = partial_syncwarps
    if counting_lines:
        meta["counting_lines"] = [int(line) for line in counting_lines]
    if warp_sync_divergence is not None:
        meta["warp_sync_divergence"] = int(warp_sync_divergence)
    if host_copies is not None:
        meta["host_copies"] = [dict(entry) for entry in host_copies]
    if local_types is not None:
        meta["local_types"] = dict(local_types)
    return Trace(meta=meta, threads=threads, args=snapshots, accesses=accesses, errors=list(errors or []),
                 requests=requests)  # fmt: skip


def _real_scalar(value):
    """A real scalar argument as a JSON value; None for arrays, complex numbers and other objects."""
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    return None
