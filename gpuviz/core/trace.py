"""The trace of one instrumented launch: what every thread was and did. Saved as a pickle-free .npz."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpuviz.core.errors import TraceFormatError

FORMAT = "gpuviz-trace/2"
# /2: meta "param_names" (was "args"), an "analysis" member (per-launch analysis, computed once).
READABLE_FORMATS = ("gpuviz-trace/1", "gpuviz-trace/2")

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
    "epoch": np.int32,  # how many barriers the thread had passed
    "value": np.float64,  # value read or written (atomics: the value after the update)
}
# Columns a backend may add: "time" is when the access was issued, in meta["time_unit"].
OPTIONAL_ACCESS_COLUMNS = {"time": np.int64}
READ, WRITE, ATOMIC = 0, 1, 2
KIND_NAMES = ("read", "write", "atomic")


@dataclass
class Trace:
    """One launch: meta (JSON-able dict), per-thread columns, argument snapshots, the access log."""

    meta: dict
    threads: dict[str, np.ndarray]
    args: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    accesses: dict[str, np.ndarray] | None = None
    # Optional, from repeated runs: "<array>.runs" (runs x shape), "<array>.lost", "<array>.sequential".
    outcomes: dict[str, np.ndarray] = field(default_factory=dict)
    # What the run computed once about the launch (JSON-able; e.g. "races"): read it, never recompute it.
    analysis: dict = field(default_factory=dict)

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

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        columns = {"format": np.array(FORMAT), "meta": np.array(json.dumps(self.meta))}
        if self.analysis:
            columns["analysis"] = np.array(json.dumps(self.analysis))
        for name, values in self.threads.items():
            columns[f"thread.{name}"] = values
        for name, (before, after) in self.args.items():
            columns[f"arg.{name}.before"] = before
            columns[f"arg.{name}.after"] = after
        for name, values in (self.accesses or {}).items():
            columns[f"access.{name}"] = values
        for name, values in self.outcomes.items():
            columns[f"outcome.{name}"] = values
        with open(path, "wb") as f:
            np.savez(f, **columns)
        return path


def load(path: str | Path) -> Trace:
    """Read a trace file written by any gpuviz that wrote a format listed in READABLE_FORMATS."""
    path = Path(path)
    if not path.is_file():
        raise TraceFormatError(f"no trace file at {path}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            columns = {key: npz[key] for key in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        reason = "it holds Python objects, which gpuviz never writes" if "pickle" in str(exc) else str(exc)
        raise TraceFormatError(f"{path.name} is not a gpuviz trace (.npz of arrays): {reason}") from None
    return _from_columns(columns, path.name)


def _from_columns(columns: dict[str, np.ndarray], name: str) -> Trace:
    fmt = str(columns.get("format", ""))
    if fmt not in READABLE_FORMATS:
        shown = fmt or "no 'format' entry"
        raise TraceFormatError(
            f"{name}: format {shown!r} is not readable; this gpuviz reads {', '.join(READABLE_FORMATS)}"
        )
    try:
        meta = json.loads(str(columns["meta"]))
        threads = {key: columns[f"thread.{key}"] for key in THREAD_COLUMNS}
        analysis = json.loads(str(columns["analysis"])) if "analysis" in columns else {}
    except (KeyError, json.JSONDecodeError) as exc:
        raise TraceFormatError(f"{name}: incomplete trace, missing or broken {exc}") from None
    args = {}
    for key in columns:
        if key.startswith("arg.") and key.endswith(".before"):
            arg = key[4:-7]
            args[arg] = (columns[key], columns.get(f"arg.{arg}.after", columns[key]))
    accesses = None
    if "access.thread" in columns:
        known = [*ACCESS_COLUMNS, *OPTIONAL_ACCESS_COLUMNS]
        accesses = {key: columns[f"access.{key}"] for key in known if f"access.{key}" in columns}
    outcomes = {key[len("outcome.") :]: columns[key] for key in columns if key.startswith("outcome.")}
    if fmt == "gpuviz-trace/1" and isinstance(meta, dict) and "args" in meta:
        meta["param_names"] = meta.pop("args")
    return Trace(meta=meta, threads=threads, args=args, accesses=accesses, outcomes=outcomes, analysis=analysis)


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
    time_source: str | None = None,
    times_inferred: bool = False,
) -> Trace:
    """The one place a trace's meta is written, whichever backend ran the launch.

    `source` is the kernel's source (name, text, filename, first_line, last_line); `values` are the
    arguments as passed (real scalars are kept in the meta); `device_facts` come from the backend.
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
        "seconds": seconds,
    }
    return Trace(meta=meta, threads=threads, args=snapshots, accesses=accesses)


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
