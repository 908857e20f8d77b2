"""The trace of one instrumented launch: what every thread was and did. Saved as a pickle-free .npz."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpuviz.core.errors import TraceFormatError

FORMAT = "gpuviz-trace/1"
READABLE_FORMATS = ("gpuviz-trace/1",)

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
    except (KeyError, json.JSONDecodeError) as exc:
        raise TraceFormatError(f"{name}: incomplete trace, missing or broken {exc}") from None
    args = {}
    for key in columns:
        if key.startswith("arg.") and key.endswith(".before"):
            arg = key[4:-7]
            args[arg] = (columns[key], columns.get(f"arg.{arg}.after", columns[key]))
    accesses = None
    if "access.thread" in columns:
        accesses = {key: columns[f"access.{key}"] for key in ACCESS_COLUMNS if f"access.{key}" in columns}
    outcomes = {key[len("outcome.") :]: columns[key] for key in columns if key.startswith("outcome.")}
    return Trace(meta=meta, threads=threads, args=args, accesses=accesses, outcomes=outcomes)


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
