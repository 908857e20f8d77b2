"""How a trace's columns are stored on disk since `gpuviz-trace/3`, and read back exactly.

In memory a trace keeps plain typed columns (core/trace/columns.py); on disk they shrink first, then the
zip deflates them:
- the layout columns (block and thread indices, warp, lane) are not stored: they follow from the
  grid, the block and the warp size (trace.thread_layout);
- an access's array, kind and source line become one small `site` number into a table of sites;
- values are stored per array in that array's own dtype (a float32 array's values in 4 bytes), where
  that holds every value exactly (else in float64);
- whole-number columns are stored as differences from the previous row where that shrinks them
  (thread ids, elements and times mostly grow by small steps), less their smallest value, in the
  narrowest unsigned integer that holds them.
The `encoding` member (JSON) says, per stored integer column, its offset, whether it holds
differences, and the first value. Decoding gives back the very columns that were saved.
"""

from __future__ import annotations

import json

import numpy as np

from gpuviz.core.trace.columns import ACCESS_COLUMNS, thread_layout

DERIVED_THREAD_COLUMNS = ("block_idx", "thread_idx", "warp", "lane")
DELTA = {"access.thread", "access.index", "access.time", "thread.t_start", "thread.t_end"}
UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)
VALUE_KINDS = "biuf"  # array dtypes whose values a float64 value column can hold


class BadEncoding(ValueError):
    """The stored columns do not decode (a damaged or hostile file); the message says why."""


# ---- writing -------------------------------------------------------------------------------------
def encode(threads: dict[str, np.ndarray], accesses: dict[str, np.ndarray] | None, arrays: list[dict]) -> dict:
    """The members that store these columns (names without ".npy"), `encoding` included."""
    members: dict[str, np.ndarray] = {}
    encoding: dict[str, dict] = {}
    for name, values in threads.items():
        if name not in DERIVED_THREAD_COLUMNS:
            _put_int(members, encoding, f"thread.{name}", values)
    if accesses is not None:
        _encode_accesses(members, encoding, accesses, arrays)
    members["encoding"] = np.array(json.dumps(encoding))
    return members


def _encode_accesses(members: dict, encoding: dict, accesses: dict[str, np.ndarray], arrays: list[dict]) -> None:
    sites, site = _sites(accesses["array"], accesses["kind"], accesses["line"])
    members["access.sites"] = sites  # rows: array, kind, line
    _put_int(members, encoding, "access.site", site.reshape(-1))
    for name in ("thread", "index", "epoch", "time"):
        if name in accesses:
            _put_int(members, encoding, f"access.{name}", accesses[name])
    value, array = accesses["value"], accesses["array"]
    ids = np.unique(sites[:, 0]).tolist()  # the arrays the log names, from its few sites
    for array_id in ids:
        values = value if len(ids) == 1 else value[array == array_id]  # one array: no mask, no copy
        members[f"access.value.{array_id}"] = _narrow_values(values, arrays, array_id)
    for name, values in accesses.items():  # a column this gpuviz does not know is kept as it is
        if name not in ACCESS_COLUMNS and name != "time":
            members[f"access.{name}"] = values


def _sites(array: np.ndarray, kind: np.ndarray, line: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct (array, kind, line) rows, sorted; each access's row number, in the narrowest
    unsigned dtype). A kernel has a few dozen sites at most, so a table over their small range
    numbers them without sorting."""
    if len(array) == 0:
        return np.zeros((0, 3), np.int64), np.zeros(0, np.uint8)
    columns = (array, kind, line)
    lows = [int(c.min()) for c in columns]
    spans = [int(c.max()) - low + 1 for c, low in zip(columns, lows)]
    if np.prod(spans, dtype=float) > 4 * len(array) + 1024:
        sites, site = np.unique(np.stack([c.astype(np.int64) for c in columns], axis=1), axis=0, return_inverse=True)
        return sites, site.reshape(-1)
    wide = np.int32 if np.prod(spans, dtype=float) < 2**31 else np.int64
    key = np.subtract(array, lows[0], dtype=wide)  # the whole key in place: one column allocated
    for column, low, span in zip(columns[1:], lows[1:], spans[1:]):
        key *= span
        key += column
        key -= low
    present = np.bincount(key) > 0
    keys = np.flatnonzero(present)
    numbers = (np.cumsum(present) - 1).astype(_unsigned(len(keys) - 1))
    sites = np.zeros((len(keys), 3), np.int64)
    for axis in (2, 1, 0):
        keys, sites[:, axis] = np.divmod(keys, spans[axis])
        sites[:, axis] += lows[axis]
    return sites, numbers[key]


def _narrow_values(values: np.ndarray, arrays: list[dict], array_id: int) -> np.ndarray:
    """The values in their array's dtype where that holds each one exactly, else as they are."""
    dtype = np.dtype(arrays[array_id]["dtype"]) if array_id < len(arrays) else values.dtype
    if dtype.kind not in VALUE_KINDS or dtype.itemsize >= values.dtype.itemsize:
        return values
    with np.errstate(all="ignore"):
        narrow = values.astype(dtype)
        back = narrow.astype(values.dtype)
    same = (back == values) | (np.isnan(back) & np.isnan(values)) if values.dtype.kind == "f" else back == values
    return narrow if bool(same.all()) else values


def _put_int(members: dict, encoding: dict, name: str, values: np.ndarray) -> None:
    """A whole-number column as differences (where useful) less their minimum, in the narrowest
    unsigned dtype; the offset, the first value and the dtype to give back go to `encoding`.
    Arithmetic is in int64 as before, written straight into the narrow column (no wide copies)."""
    values = np.asarray(values)
    first = int(values[0]) if len(values) else 0
    delta = name in DELTA and len(values) > 1
    stored = _differences(values) if delta else values
    offset = int(stored.min()) if len(stored) else 0
    span = int(stored.max()) - offset if len(stored) else 0
    dtype = _unsigned(span)
    if offset == 0 and stored.dtype == dtype:
        members[name] = stored  # already narrow and from zero (site numbers): stored as it is
    else:
        members[name] = np.subtract(stored, offset, dtype=np.int64, out=np.empty(len(stored), dtype), casting="unsafe")
    encoding[name] = {"offset": offset, "delta": delta, "first": first, "dtype": values.dtype.str}


def _differences(values: np.ndarray) -> np.ndarray:
    """Each value less the one before, in int64; the first row 0 (np.diff with prepend copies twice)."""
    stored = np.empty(len(values), np.int64)
    stored[0] = 0
    np.subtract(values[1:], values[:-1], out=stored[1:], dtype=np.int64)
    return stored


def _unsigned(span: int) -> np.dtype:
    return np.dtype(next(d for d in UNSIGNED if span <= np.iinfo(d).max))


# ---- reading -------------------------------------------------------------------------------------
def decode(members: dict[str, np.ndarray], meta: dict) -> dict[str, np.ndarray]:
    """The `gpuviz-trace/2` columns (thread.*, access.*) from a `/3` file's members, every other
    member as it was; raises BadEncoding for members that cannot be what gpuviz wrote."""
    encoding = _encoding(members)
    columns = {k: v for k, v in members.items() if not k.startswith(("thread.", "access.")) and k != "encoding"}
    n_threads = int(np.prod(meta["grid"])) * int(np.prod(meta["block"]))
    for name in ("sm", "t_start", "t_end"):
        columns[f"thread.{name}"] = _get_int(members, encoding, f"thread.{name}", n_threads)
    warp_size = meta.get("warp_size", 32)
    layout = thread_layout(tuple(meta["grid"]), tuple(meta["block"]), warp_size)
    columns.update({f"thread.{name}": values for name, values in zip(DERIVED_THREAD_COLUMNS, layout)})
    if "access.site" in members:
        columns.update(_decode_accesses(members, encoding))
    return columns


def _decode_accesses(members: dict, encoding: dict) -> dict[str, np.ndarray]:
    site = _get_int(members, encoding, "access.site", None)
    length = len(site)
    sites = members.get("access.sites")
    if sites is None or sites.ndim != 2 or sites.shape[1] != 3 or sites.dtype.kind not in "iu":
        raise BadEncoding("its access.sites is not a table of (array, kind, line) rows")
    if length and int(site.max()) >= len(sites):
        raise BadEncoding(f"access.site names site {int(site.max())}; the table has {len(sites)}")
    out = {name: _per_access(sites[:, axis].astype(ACCESS_COLUMNS[name]), site)
           for axis, name in enumerate(("array", "kind", "line"))}  # fmt: skip
    for name in ("thread", "index", "epoch", "time"):
        if f"access.{name}" in members or name != "time":
            out[name] = _get_int(members, encoding, f"access.{name}", length)
    out["value"] = _values(members, out["array"], length)
    columns = {f"access.{name}": values for name, values in out.items()}
    known = {"access.site", "access.sites", *columns}
    columns.update({k: v for k, v in members.items() if k.startswith("access.") and k not in known
                    and not k.startswith("access.value.")})  # fmt: skip
    return columns


def _per_access(table: np.ndarray, site: np.ndarray) -> np.ndarray:
    """A site table's column for every access; one fill where every site has the same value
    (a kernel touching one array, or one line), else a gather."""
    if len(table) and len(site) and bool((table == table[0]).all()):
        return np.full(len(site), table[0], table.dtype)
    return np.take(table, site)


def _values(members: dict, array: np.ndarray, length: int) -> np.ndarray:
    value = None
    filled = 0
    for key in [k for k in members if k.startswith("access.value.")]:
        array_id = key[len("access.value.") :]
        stored = members[key]
        if not array_id.isdigit() or stored.ndim != 1 or stored.dtype.kind not in VALUE_KINDS:
            raise BadEncoding(f"its {key} is not a column of values of one array")
        rows = array == int(array_id)
        held = int(np.count_nonzero(rows))
        if held != len(stored):
            raise BadEncoding(f"its {key} holds {len(stored)} values for {held} accesses")
        if held == length:  # one array (the usual case): its values are the column, widened once
            value = stored.astype(np.float64)
        elif held:
            value = np.zeros(length, np.float64) if value is None else value
            value[rows] = stored
        filled += len(stored)
    if filled != length:
        raise BadEncoding(f"its access values cover {filled} of {length} accesses")
    return np.zeros(length, np.float64) if value is None else value


def stand_ins(members: dict) -> dict[str, np.ndarray | None]:
    """The columns `decode` derives rather than reads, for the range checks (core/trace/schema.py):
    a layout column follows from the grid and the block, so it is in range by construction (None);
    a column of the site table holds only that table's values, so its few rows stand for it.
    Call it once `decode` has accepted the members (it checks the site table)."""
    found: dict[str, np.ndarray | None] = {f"thread.{name}": None for name in DERIVED_THREAD_COLUMNS}
    if "access.site" in members:
        sites = members["access.sites"]
        found.update({f"access.{name}": sites[:, axis].astype(ACCESS_COLUMNS[name])  # as decode casts them
                      for axis, name in enumerate(("array", "kind", "line"))})  # fmt: skip
    return found


def _encoding(members: dict) -> dict:
    text = members.get("encoding")
    if text is None or text.dtype.kind != "U" or text.ndim != 0:
        raise BadEncoding("incomplete trace, it has no 'encoding' entry")
    try:
        encoding = json.loads(str(text))
    except (ValueError, RecursionError):
        raise BadEncoding("its 'encoding' entry is broken JSON") from None
    if not isinstance(encoding, dict):
        raise BadEncoding("its 'encoding' entry is not a JSON object")
    return encoding


def _get_int(members: dict, encoding: dict, name: str, length: int | None) -> np.ndarray:
    stored, how = members.get(name), encoding.get(name)
    if stored is None or not isinstance(how, dict):
        raise BadEncoding(f"incomplete trace, it has no {name}")
    if stored.dtype.kind not in "u" or stored.ndim != 1 or (length is not None and len(stored) != length):
        raise BadEncoding(f"{name} holds {stored.dtype}{stored.shape}; it must hold {length} whole numbers")
    offset, first, delta = how.get("offset"), how.get("first"), how.get("delta")
    if not all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**63 for v in (offset, first)):
        raise BadEncoding(f"the encoding of {name} is not whole numbers")
    try:
        dtype = np.dtype(how.get("dtype", "<i8"))
    except (TypeError, ValueError, SyntaxError):
        raise BadEncoding(f"the encoding of {name} names no NumPy dtype") from None
    if dtype.kind not in "iu":
        raise BadEncoding(f"the encoding of {name} gives {dtype}; it must be a whole-number dtype")
    # Whole-number arithmetic wraps in the dtype given back, and wraps back: the sums come out exact
    # for every value that dtype holds (what was saved); a hostile file gets values the checks refuse.
    if not offset and delta is not True:
        return stored.astype(dtype, copy=False)  # nothing to add: no copy (site numbers stored as they are)
    values = stored.astype(dtype)
    if offset:
        values += np.array(offset).astype(dtype)
    if delta is True and len(values):
        values[0] = np.array(first).astype(dtype)
        np.cumsum(values, out=values)
    return values
