"""What a trace file may contain: every meta field and column with its type, shape and range, checked
before a Trace is built, so nothing downstream meets a value it cannot trust (a negative grid, a
thread id past the thread count, an index past its array)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np

from gpuviz.core.errors import TraceFormatError
from gpuviz.core.launch import MAX_BLOCK_DIMS, MAX_GRID_DIMS, MAX_THREADS_PER_BLOCK
from gpuviz.core.trace.analysis_schema import checked_analysis
from gpuviz.core.trace.codec import BadEncoding, decode, stand_ins
from gpuviz.core.trace.columns import (
    ACCESS_COLUMNS,
    KIND_NAMES,
    OPTIONAL_ACCESS_COLUMNS,
    READABLE_FORMATS,
    THREAD_COLUMNS,
)


class _Bad(Exception):
    """One problem with the file, said without its name (trace_parts adds it)."""


def trace_parts(columns: dict[str, np.ndarray], name: str) -> dict:
    """The checked keyword arguments of Trace, or one TraceFormatError line naming the file."""
    try:
        return _parts(columns)
    except _Bad as exc:
        raise TraceFormatError(f"{name}: {exc}") from None


def _parts(columns: dict[str, np.ndarray]) -> dict:
    if "format" not in columns:  # an .npz of someone else's arrays (np.savez)
        raise _Bad("not a gpuviz trace (it has no 'format' entry); gpuviz run writes traces, and info, races and "
                   "the app read them")  # fmt: skip
    fmt = _text(columns, "format")
    if fmt not in READABLE_FORMATS:
        raise _Bad(f"format {fmt!r} is not readable; this gpuviz reads {', '.join(READABLE_FORMATS)}")
    meta = _json(columns, "meta")
    if not isinstance(meta, dict):
        raise _Bad("incomplete trace, its meta is not a JSON object")
    if fmt == "gpuviz-trace/1" and "args" in meta:
        meta["param_names"] = meta.pop("args")
    check_meta(meta)
    derived: dict[str, np.ndarray | None] = {}  # columns derived on load: what their range check reads
    if fmt == "gpuviz-trace/3":
        try:
            columns, derived = decode(columns, meta), stand_ins(columns)
        except BadEncoding as exc:
            raise _Bad(str(exc)) from None
    threads = _threads(columns, meta, derived)
    args = _snapshots(columns)
    _check_array_sizes(meta)
    accesses = _accesses(columns, meta, derived) if any(key.startswith("access.") for key in columns) else None
    analysis, dropped = _stored_analysis(columns, meta)
    if dropped:
        meta.setdefault("warnings", []).append(dropped)
    return dict(meta=meta, threads=threads, args=args, accesses=accesses, outcomes=_outcomes(columns, args),
                analysis=analysis, errors=_errors(columns, meta))  # fmt: skip


def _errors(columns: dict[str, np.ndarray], meta: dict) -> list[dict]:
    """The memory errors: a JSON list of objects whose threads are threads of the launch."""
    errors = _json(columns, "errors") if "errors" in columns else []
    if not isinstance(errors, list) or not all(isinstance(e, dict) for e in errors):
        raise _Bad("its 'errors' member is not a list of error records")
    threads = int(np.prod(meta["grid"])) * int(np.prod(meta["block"]))
    for error in errors:
        thread = error.get("thread", 0)
        if not isinstance(thread, int) or not 0 <= thread < threads:
            raise _Bad(f"its errors name thread {thread!r}; the launch has threads 0 to {threads - 1}")
    return errors


# ---- meta ------------------------------------------------------------------------------------------
def _whole(low: int, high: int) -> Callable[[object], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _dims(limits: tuple[int, int, int]) -> Callable[[object], bool]:
    return lambda v: isinstance(v, list) and len(v) == 3 and all(_whole(1, m)(d) for d, m in zip(v, limits))


def _list_of(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda v: isinstance(v, list) and all(check(item) for item in v)


def _is(*types: type) -> Callable[[object], bool]:
    return lambda v: isinstance(v, types)


def _number(v: object) -> bool:
    """Any finite number: a GPU's event timer can report a launch as slightly negative."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _array_entry(v: object) -> bool:
    if not (isinstance(v, dict) and _is(str)(v.get("name")) and _is(str)(v.get("space"))):
        return False
    if not (_list_of(_whole(0, 2**62))(v.get("shape")) and len(v["shape"]) <= 32):
        return False
    if not isinstance(v.get("dtype"), str):  # np.dtype(None) would be float64
        return False
    try:
        dtype = np.dtype(v["dtype"])
    except (TypeError, ValueError, SyntaxError):
        return False
    return not dtype.hasobject and math.prod(v["shape"]) <= 2**62


def _outcome_meta(v: object) -> bool:
    if not (isinstance(v, dict) and _whole(1, 10**6)(v.get("runs"))):
        return False
    seeds = v.get("seeds")
    return _list_of(_whole(-(2**63), 2**63))(seeds) and len(seeds) == v["runs"]


def _plain_time_meta(v: object) -> bool:
    if not (isinstance(v, dict) and _number(v.get("ms")) and _whole(1, 10**6)(v.get("launches"))):
        return False
    return v["ms"] >= 0 and _is(str)(v.get("card")) and _is(str)(v.get("date"))


WHOLE = _whole(-(2**63), 2**63 - 1)
# key: (required, check, what is allowed)
META = {
    "kernel": (True, _is(str), "a name"),
    "grid": (True, _dims(MAX_GRID_DIMS), f"3 whole numbers, each from 1 to {MAX_GRID_DIMS}"),
    "block": (True, _dims(MAX_BLOCK_DIMS), f"3 whole numbers, each from 1 to {MAX_BLOCK_DIMS}"),
    "backend": (True, _is(str), "a backend name"),
    "device": (True, _is(str), "a device name"),
    "sm_count": (True, _whole(1, 100_000), "a whole number of SMs from 1 to 100000"),
    "warp_size": (False, _whole(1, 1024), "a whole number from 1 to 1024"),
    "time_unit": (True, _is(str), "a unit name"),
    "launch": (False, _whole(0, 2**31), "a launch number from 0"),
    "param_names": (False, _list_of(_is(str)), "a list of names"),
    "scalars": (False, lambda v: isinstance(v, dict) and all(_is(bool, int, float)(x) for x in v.values()),
                "names and numbers"),  # fmt: skip
    "arrays": (False, _list_of(_array_entry), "entries of name, space, dtype and shape"),
    "level": (False, _is(str), "a level name"),
    "schedule": (False, _is(str), "a schedule name"),
    "seed": (False, lambda v: v is None or WHOLE(v), "a whole number or null"),
    "truncated": (False, _is(bool), "true or false"),
    "warnings": (False, _list_of(_is(str)), "a list of lines"),
    "seconds": (False, _number, "a number of seconds"),
    "source": (False, _is(str), "the kernel's source text"),
    "source_file": (False, _is(str), "a file name"),
    "source_lines": (False, lambda v: isinstance(v, list) and len(v) == 2 and all(map(_whole(0, 10**9), v)),
                     "first and last line"),  # fmt: skip
    "device_facts": (False, _is(dict), "a JSON object"),
    "outcomes": (False, _outcome_meta, "a number of runs and one seed for each"),
    "plain_time": (False, _plain_time_meta, "ms, launches, card and date"),
    "streams": (False, lambda v: isinstance(v, dict) and isinstance(v.get("spans"), list),
                "a stream timeline: fidelity, device and a list of spans"),  # fmt: skip
}


def check_meta(meta: dict) -> None:
    """Every known meta field has the type and range gpuviz writes; unknown fields are left alone."""
    for key, (required, check, allowed) in META.items():
        if key not in meta:
            if required:
                raise _Bad(f"incomplete trace, its meta has no {key!r}")
            continue
        if not check(meta[key]):
            raise _Bad(f"meta {key} is {_show(meta[key])}; it must be {allowed}")
    per_block = math.prod(meta["block"])
    if per_block > MAX_THREADS_PER_BLOCK:
        raise _Bad(f"meta block {meta['block']} has {per_block} threads; at most {MAX_THREADS_PER_BLOCK} are allowed")


# ---- columns -----------------------------------------------------------------------------------------
def _threads(columns: dict, meta: dict, derived: dict) -> dict[str, np.ndarray]:
    grid, block = meta["grid"], meta["block"]
    n = math.prod(grid) * math.prod(block)
    warp_size = meta.get("warp_size", 32)
    ranges = {  # column: exclusive upper bound of each value, per axis for the (n, 3) columns
        "block_idx": grid, "thread_idx": block, "warp": -(-math.prod(block) // warp_size), "lane": warp_size,
        "sm": meta["sm_count"], "t_start": None, "t_end": None,
    }  # fmt: skip
    threads = {}
    for key, dtype in THREAD_COLUMNS.items():
        shape = (n, 3) if key in ("block_idx", "thread_idx") else (n,)
        values = _column(columns, f"thread.{key}", dtype, shape, "iu")
        if ranges[key] is not None and f"thread.{key}" not in derived:  # derived: from the checked meta
            _within(values, 0, np.asarray(ranges[key]), f"thread.{key}")
        threads[key] = values.astype(dtype, copy=False)
    return threads


def _accesses(columns: dict, meta: dict, derived: dict) -> dict[str, np.ndarray]:
    n_threads = math.prod(meta["grid"]) * math.prod(meta["block"])
    sizes = np.array([math.prod(entry["shape"]) for entry in meta.get("arrays", [])], dtype=np.int64)
    length = columns["access.thread"].shape[0] if getattr(columns.get("access.thread"), "ndim", 0) == 1 else None
    if length is None:
        raise _Bad("incomplete trace, access.thread is missing or not a column")
    out = {}
    for key, dtype in ACCESS_COLUMNS.items():
        values = _column(columns, f"access.{key}", dtype, (length,), "fiub" if key == "value" else "iu")
        out[key] = values.astype(dtype, copy=False) if key == "value" else values
    _within(out["thread"], 0, n_threads, "access.thread")
    for key, high in (("array", len(sizes)), ("kind", len(KIND_NAMES)), ("line", 2**31)):
        table = derived.get(f"access.{key}")  # a site table's column: its rows are all the values there are
        _within(out[key] if table is None else table, 0, high, f"access.{key}" if table is None else "access.sites")
    _within(out["epoch"], 0, 2**31, "access.epoch")
    if length:  # one bound for all when the log names one array (the usual case), else one per access
        bounds = sizes[0] if len(sizes) == 1 else sizes[out["array"].astype(np.intp)]
        _within(out["index"], 0, bounds, "access.index")
    result = {key: out[key].astype(dtype, copy=False) for key, dtype in ACCESS_COLUMNS.items()}
    for key, dtype in OPTIONAL_ACCESS_COLUMNS.items():  # a time per access, where the backend recorded one
        if f"access.{key}" in columns:
            kinds = "iu" if np.dtype(dtype).kind in "iu" else "fiu"
            result[key] = _column(columns, f"access.{key}", dtype, (length,), kinds).astype(dtype, copy=False)
    return result


def _snapshots(columns: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    args = {}
    for key in columns:
        if key.startswith("arg.") and key.endswith(".before"):
            name = key[4:-7]
            before = columns[key]
            after = columns.get(f"arg.{name}.after", before)
            if after.shape != before.shape or after.dtype != before.dtype:
                raise _Bad(f"arg.{name}: before is {before.dtype}{before.shape}, after is {after.dtype}{after.shape}")
            args[name] = (before, after)
    return args


MAX_SHARED_BYTES = 1 << 20  # more than any SM's shared memory
MAX_DEVICE_BYTES = 1 << 38  # 256 GiB: more than any GPU's memory


def _check_array_sizes(meta: dict) -> None:
    """An array's shape is one a device could hold (the access log's indices are checked against it)."""
    for entry in meta.get("arrays", []):
        name, shape = entry["name"], tuple(entry["shape"])
        size = math.prod(shape) * np.dtype(entry["dtype"]).itemsize
        limit = MAX_SHARED_BYTES if entry["space"] == "shared" else MAX_DEVICE_BYTES
        if size > limit:
            raise _Bad(f"meta arrays says {name} has shape {shape} ({size:,} bytes), more than a device holds")


OUTCOME_KINDS = ("runs", "lost", "sequential", "reversed", "plain")


def _outcomes(columns: dict, args: dict) -> dict[str, np.ndarray]:
    outcomes = {key[len("outcome.") :]: columns[key] for key in columns if key.startswith("outcome.")}
    for key, values in outcomes.items():
        name, _, kind = key.rpartition(".")
        if name not in args or kind not in OUTCOME_KINDS or values.dtype.kind not in "fiubc":
            raise _Bad(f"outcome.{key} is not an outcome of an array argument of the launch")
        shape = args[name][0].shape
        runs = outcomes.get(f"{name}.runs")
        wanted = {"runs": values.ndim >= 1 and values.shape[0] > 0 and values.shape[1:] == shape,
                  "sequential": values.shape == shape, "reversed": values.shape == shape,
                  "plain": values.shape == shape,
                  "lost": runs is not None and values.shape == runs.shape}  # fmt: skip
        if not wanted[kind]:
            raise _Bad(f"outcome.{key} has shape {values.shape}, which does not fit {name}{shape}")
    return outcomes


def _stored_analysis(columns: dict[str, np.ndarray], meta: dict) -> tuple[dict, str]:
    """The stored analysis, or {} and one line when it fails its schema (analysis_schema.py): it is
    worked out again, so a damaged analysis never costs the trace."""
    if "analysis" not in columns:
        return {}, ""
    try:
        analysis = _json(columns, "analysis")
    except _Bad as exc:
        return {}, f"its stored analysis was dropped ({exc}); it is worked out again from the trace"
    return checked_analysis(analysis, meta)


def _inside(coords: tuple, dims: list[int]) -> bool:
    return len(coords) == 3 and all(isinstance(c, int) and 0 <= c < d for c, d in zip(coords, dims))


# ---- helpers ---------------------------------------------------------------------------------------
def _column(columns: dict, key: str, dtype: type, shape: tuple, kinds: str) -> np.ndarray:
    values = columns.get(key)
    if values is None:
        raise _Bad(f"incomplete trace, it has no {key}")
    if values.dtype.kind not in kinds:
        raise _Bad(f"{key} holds {values.dtype}; it must hold {np.dtype(dtype)}")
    if values.shape != shape:
        raise _Bad(f"{key} has shape {values.shape}; the launch needs {shape}")
    return values


def _within(values: np.ndarray, low: int, high, key: str) -> None:
    """Every value in [low, high): `high` may be a number, one bound per axis, or one per value."""
    if not values.size:
        return
    high = np.asarray(high)
    per_value = high.shape == values.shape
    axis = 0 if values.ndim > 1 and high.ndim == 1 else None
    if values.min(axis=axis).min() >= low and (
        (values < high).all() if per_value else (values.max(axis=axis) < high).all()
    ):
        return  # the usual case: two reductions, no masks the size of the column
    outside = (values < low) | (values >= high)
    if outside.any():
        where = tuple(int(i) for i in np.argwhere(outside)[0])
        bound = high if np.ndim(high) == 0 else np.broadcast_to(high, values.shape)[where]
        raise _Bad(f"{key}[{where[0]}] is {values[where]}; it must be from {low} to {int(bound) - 1}")


def _text(columns: dict, key: str) -> str:
    value = columns[key]
    if value.dtype.kind != "U" or value.ndim != 0:
        raise _Bad(f"{key} must be text, it holds {value.dtype}{value.shape}")
    return str(value)


def _json(columns: dict, key: str) -> object:
    if key not in columns:
        raise _Bad(f"incomplete trace, it has no {key!r}")
    try:
        return json.loads(_text(columns, key))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, too deep, a number of 5000 digits
        raise _Bad(f"incomplete trace, its {key} is broken JSON ({type(exc).__name__})") from None


def _show(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."
