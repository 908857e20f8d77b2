"""Memory for the simulator: the arrays a launch touches, the access log, and the hooks that use them."""

from __future__ import annotations

import math
import warnings

import numpy as np

from gpuviz.backends.sim.arithmetic import (
    as_stored,
    cast_hooks,
    comparison_hooks,
    min_or_max,
    numba_range,
    one_value_hooks,
    to_int,
)
from gpuviz.backends.sim.collective_types import atomic_index, atomic_refusal
from gpuviz.backends.sim.faults import ErrorLog, KernelLimit, MemoryFault, ThreadFault
from gpuviz.backends.sim.intrinsics import ATOMIC_OPS, BIT_FUNCTIONS, GRID_GROUP, DeviceValue, call_value, dynamic_view
from gpuviz.backends.sim.math_functions import math_hooks
from gpuviz.backends.sim.spin import SAMPLE, SpinWatch
from gpuviz.core.dtypes import dtype_text, to_dtype
from gpuviz.core.trace.columns import ACCESS_COLUMNS, ATOMIC, FENCED, READ, WRITE
from gpuviz.instrument.shared_memory import MAX_LOCAL, MAX_STATIC_SHARED

_FLUSH_EVERY = 1 << 18
FROZEN_STORE = ("a store into a module-level array: numba-cuda copies such an array into the kernel as a constant "
                "when it compiles it, and refuses to compile a store into it; pass the array as an argument")


class ArrayTable:
    """Every array a launch can log accesses to, by id of the live object, and their descriptions."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self.ids: dict[int, int] = {}
        self.names: dict[int, str] = {}  # id(object) -> name, for error messages
        self._sites: dict[str, int] = {}
        self.static_shared = 0  # bytes of the static shared arrays declared so far, per block
        # id(shared array) -> [which elements were written, how many are not yet]; dropped once all are
        self.written: dict[int, list] = {}
        self._fields: dict[tuple[int, str], np.ndarray] = {}

    def add_global(self, name: str, array: np.ndarray) -> int:
        if id(array) in self.ids:
            return self.ids[id(array)]
        aid = self._add(name, "global", array.dtype, array.shape)
        self.bind(array, aid, name)
        return aid

    def shared_site(self, site: str, name: str, dtype: np.dtype, shape: tuple) -> int:
        """One entry per shared-array declaration; every block's copy shares it."""
        if site not in self._sites:
            self._sites[site] = self._add(name, "shared", dtype, shape)
        return self._sites[site]

    def add_const(self, name: str, array: np.ndarray) -> int:
        """A read-only array the kernel reads: a module-global array frozen at compile time, or
        cuda.const.array_like's copy."""
        if id(array) in self.ids:
            return self.ids[id(array)]
        aid = self._add(name, "const", array.dtype, array.shape)
        self.bind(array, aid, name)
        return aid

    def bind(self, array: np.ndarray, aid: int, name: str) -> None:
        self.ids[id(array)] = aid
        self.names[id(array)] = name

    def field(self, array: object, name: str) -> np.ndarray:
        """`r['x']` for a kernel's `r[i].x`: the field's values as an array of their own type, bound to r's entry
        (element i of the view is logged as element i of r); one view per array and field, kept for the launch
        (which also keeps `id(array)` from being reused)."""
        key = (id(array), name)
        view = self._fields.get(key)
        if view is None:
            if name not in (getattr(getattr(array, "dtype", None), "names", None) or ()):
                raise ThreadFault(self.no_field(array, name))
            view = self._fields[key] = array[name]
            if id(array) in self.ids:
                self.bind(view, self.ids[id(array)], self.names[id(array)])
        return view

    def no_field(self, array: object, name: str) -> str:
        dtype = getattr(array, "dtype", type(array).__name__)
        fields = ", ".join(getattr(dtype, "names", None) or ())
        has = f"its records have the fields {fields}" if fields else f"its elements are {dtype}, not records"
        return f"{self.names.get(id(array), 'the array')}[...] has no field '{name}': {has}"

    def unbind(self, array: np.ndarray) -> None:
        self.ids.pop(id(array), None)
        self.names.pop(id(array), None)
        self.written.pop(id(array), None)

    def _add(self, name: str, space: str, dtype: np.dtype, shape: tuple) -> int:
        self.entries.append(
            {"name": name, "space": space, "dtype": dtype_text(dtype), "shape": list(shape)}
        )
        return len(self.entries) - 1


class AccessLog:
    """Access events, seven numbers each, in a flat list flushed into float64 chunks.

    A flat list of numbers (not a list of tuples) keeps the garbage collector out of the way.
    """

    def __init__(self, cap: int) -> None:
        self.buffer: list[tuple] = []
        self.chunks: list[np.ndarray] = []
        self.count = 0
        self.cap = cap
        self.truncated = False

    def maybe_flush(self) -> None:
        if len(self.buffer) >= 7 * _FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        if not self.buffer:
            return
        room = 7 * (self.cap - self.count)
        if len(self.buffer) > room:
            self.truncated = True
            del self.buffer[room:]
        if self.buffer:
            try:
                with warnings.catch_warnings():  # complex values: the log keeps their real part (said once, here)
                    warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                    chunk = np.fromiter(self.buffer, dtype=np.float64, count=len(self.buffer))
            except (TypeError, ValueError):  # records: NaN
                chunk = np.array([_as_float(v) for v in self.buffer], dtype=np.float64)
            self.chunks.append(chunk.reshape(-1, 7))
            self.count += len(self.buffer) // 7
        self.buffer.clear()

    def columns(self) -> dict[str, np.ndarray]:
        self.flush()
        rows = np.concatenate(self.chunks) if self.chunks else np.zeros((0, 7))
        return {
            name: rows[:, k].astype(dtype) for k, (name, dtype) in enumerate(ACCESS_COLUMNS.items())
        }


def _as_float(value) -> float:
    try:
        return float(getattr(value, "real", value))
    except (TypeError, ValueError):
        return float("nan")


def flat_index(array: np.ndarray, index: object) -> int:
    """The C-order element number of an in-bounds index (negative indices wrap, as in numba)."""
    if type(index) is not tuple:
        k = int(index)
        return k + array.shape[0] if k < 0 else k
    flat = 0
    for k, n in zip(index, array.shape):
        k = int(k)
        flat = flat * n + (k + n if k < 0 else k)
    return flat


def describe_bad_index(array: object, index: object, arrays: ArrayTable, exc: Exception) -> str:
    name = arrays.names.get(id(array))
    label = f"'{name}'" if name else "a local array"
    shape = getattr(array, "shape", ())
    size = f"size {shape[0]}" if len(shape) == 1 else f"shape {tuple(shape)}"
    parts = index if isinstance(index, tuple) else (index,)
    if any(isinstance(p, (float, np.floating)) for p in parts):
        return f"index {_show(index)} into {label} is a float; array indices must be integers (use //)"
    if isinstance(exc, IndexError) and "out of bounds" in str(exc):
        return f"index {_show(index)} is out of bounds for {label} ({size})"
    return f"bad index {_show(index)} into {label}: {exc}"


def _show(index: object) -> str:
    if isinstance(index, tuple):
        return "(" + ", ".join(_show(i) for i in index) + ")"
    return str(index.item() if hasattr(index, "item") else index)


def make_hooks(arrays: ArrayTable, log: AccessLog | None, grid: tuple, block: tuple, shared_bytes: int = 0,
               errors: ErrorLog | None = None, spin: SpinWatch | None = None) -> dict:  # fmt: skip
    """The functions and constants an instrumented kernel calls, bound to one launch. Shared arrays
    remember which elements were written, so reads of uninitialised shared memory are reported;
    `spin` hears of every SAMPLE-th load and of every write (a launch that makes no progress stops)."""
    errors = errors if errors is not None else ErrorLog()
    loads = [0]  # loads so far (spin watch sampling)
    unwritten_shared = arrays.written
    ids_get = arrays.ids.get
    record = log.buffer.extend if log is not None else None
    bdx, bdy, bdz = block
    gdx, gdy, gdz = grid

    def fault(array, index, exc, kind="read"):
        message = describe_bad_index(array, index, arrays, exc)
        if isinstance(exc, IndexError) and "out of bounds" in str(exc):
            name = arrays.names.get(id(array), "a local array")
            return MemoryFault(message, f"out-of-bounds {kind}", name, index)
        return ThreadFault(message)

    def mark_written(entry, array, index):
        if entry is not None:
            mask = entry[0]
            seen = mask[index]
            if type(seen) is not np.bool_:  # a row or a slice at once
                mask[index] = True
                entry[1] = mask.size - int(np.count_nonzero(mask))
            elif not seen:
                mask[index] = True
                entry[1] -= 1
            if entry[1] == 0:  # every element written: its loads need no check any more
                del unwritten_shared[id(array)]
        elif array.base is not None:
            unwritten_shared.pop(id(array.base), None)  # written through a slice: no longer tracked

    def report_uninitialised(t, array, index, line, entry):
        if not np.all(entry[0][index]):
            errors.add("uninitialised shared read", t.gid, line, arrays.names.get(id(array)), index)

    def ld(t, array, index, line, _=None):
        try:
            value = array[index]
        except (IndexError, TypeError) as exc:
            raise fault(array, index, exc) from None
        if unwritten_shared:  # inline: this is the simulator's hottest code
            entry = unwritten_shared.get(id(array))
            if entry is not None:
                report_uninitialised(t, array, index, line, entry)
        if record is not None:
            aid = ids_get(id(array))
            if aid is not None:
                if type(index) is int and index >= 0 and array.ndim == 1:
                    record((t.gid, aid, index, READ, line, t.ep, value))
                elif not isinstance(value, np.ndarray):  # one element (a row read stays unlogged)
                    record((t.gid, aid, flat_index(array, index), READ, line, t.ep, value))
        if spin is not None:
            loads[0] += 1
            if loads[0] % SAMPLE == 0:
                report_read(t, array, index, value, line)
        return value

    def report_read(t, array, index, value, line):
        aid = ids_get(id(array))
        flat = flat_index(array, index) if not isinstance(value, np.ndarray) else -1
        shown = value.item() if isinstance(value, np.generic) else None
        spin.read(aid, flat, shown, line, lambda: f"threads of block {t.block.index}, thread {t.gid} among them,",
                  t.gid)  # fmt: skip

    def st(t, array, index, value, line, _=None):
        if spin is not None:
            spin.wrote()
        try:
            array[index] = as_stored(value, array.dtype)
        except (IndexError, TypeError) as exc:
            raise fault(array, index, exc, "write") from None
        except ValueError as exc:
            if not array.flags.writeable:
                raise ThreadFault(FROZEN_STORE) from None
            raise ThreadFault(f"cannot store {value!r}: {exc}") from None
        if unwritten_shared:
            entry = unwritten_shared.get(id(array))
            if entry is not None or array.base is not None:
                mark_written(entry, array, index)
        if record is not None:
            aid = ids_get(id(array))
            if aid is not None:
                if type(index) is int and index >= 0 and array.ndim == 1:
                    record((t.gid, aid, index, WRITE, line, t.ep, array[index]))  # as stored: cast
                elif (len(index) if type(index) is tuple else 1) == array.ndim:  # one element, not a row
                    record((t.gid, aid, flat_index(array, index), WRITE, line, t.ep, array[index]))

    def atomic(t, op, array, index, operands, line, _=None):
        refused = atomic_refusal(op, array, index)
        if refused:
            raise ThreadFault(refused)
        index = atomic_index(index)
        try:
            old = array[index]
            array[index] = ATOMIC_OPS[op](old, *(as_stored(o, array.dtype) for o in operands))
            new = array[index]
        except (IndexError, TypeError) as exc:
            raise fault(array, index, exc, "atomic") from None
        if spin is not None:  # an atomic that changes nothing (a failed compare-and-swap) is a read
            spin.wrote() if np.any(old != new) else report_read(t, array, index, old, line)
        if unwritten_shared:
            entry = unwritten_shared.get(id(array))
            if entry is not None or array.base is not None:
                mark_written(entry, array, index)
        if record is not None:
            aid = ids_get(id(array))
            if aid is not None:
                record((t.gid, aid, flat_index(array, index), ATOMIC, line, t.ep, new))
        return old

    def shared(t, site, name, shape_dtype, keywords, line):
        block_arrays = t.block.shared
        array = block_arrays.get(site)
        if array is None:
            shape, dtype = _shape_dtype(shape_dtype, keywords)
            if shape == 0:  # dynamic shared memory: every such declaration views the block's one buffer
                array = dynamic_view(block_arrays, shared_bytes, dtype)
            else:
                if site not in arrays._sites:
                    _count_static_shared(arrays, shape, dtype)
                array = np.zeros(shape, dtype)
                unwritten_shared[id(array)] = [np.zeros(array.shape, bool), array.size]
            block_arrays[site] = array
            arrays.bind(array, arrays.shared_site(site, name, dtype, array.shape), name)
        return array

    def local(shape, dtype):
        dtype = to_dtype(dtype)
        size = math.prod(shape) if isinstance(shape, tuple) else int(shape)
        if size * dtype.itemsize > MAX_LOCAL:
            raise KernelLimit(
                f"cuda.local.array of {size * dtype.itemsize:,} bytes per thread; a thread has at most "
                f"{MAX_LOCAL:,} bytes (512 KiB) of local memory, and the GPU refuses the launch"
            )
        return np.zeros(shape, dtype)

    def atomic_fn(t, op, line):
        """cuda.atomic.<op> passed as a value: the atomic, bound to the thread that passed it."""
        return lambda array, index, *operands: atomic(t, op, array, index, operands, line)

    def kernel_print(t, *values):
        *values, line = values
        text = " ".join(str(v) for v in values)
        if len(errors.printed) < errors.MAX_ERRORS * 10:
            errors.printed.append({"thread": t.gid, "line": line, "text": text})
        print(text)

    def ufunc(t, function, *operands):
        """np.sin(x, r) inside a kernel: one recorded load per input element, one store per output."""
        *operands, line = operands
        inputs, outputs = operands[: function.nin], operands[function.nin :]
        arrays_in = [a for a in inputs if isinstance(a, np.ndarray)]
        if not arrays_in:
            return function(*operands)
        shape = np.broadcast_shapes(*(a.shape for a in arrays_in))
        out = outputs[0] if outputs else np.zeros(shape, function(*(np.asarray(a).flat[0] for a in inputs)).dtype)
        for index in np.ndindex(*shape):
            values = [ld(t, a, index, line) if isinstance(a, np.ndarray) else a for a in inputs]
            st(t, out, index, function(*values), line)
        return out

    def const(name, array):
        if id(array) in arrays.ids:  # an array the table knows (an argument): the same array, as the GPU logs it
            return array
        arrays.add_const(name, array)  # a module-global: `environment` froze it already
        return array

    return {
        "_gv_ld": ld,
        "_gv_st": st,
        "_gv_atomic": atomic,
        "_gv_shared": shared,
        **grid_hooks(grid, block),
        "_gv_local": local,
        "range": numba_range,  # a float bound: numba's conversion, not Python's TypeError
        "_gv_field": arrays.field,
        "_gv_const": const,
        "_gv_ufunc": ufunc,
        "_gv_print": kernel_print,
        "_gv_call": call_value,
        "_gv_device_value": DeviceValue,
        "_gv_atomic_fn": atomic_fn,
        "_gv_this_grid": lambda: GRID_GROUP,
        "_gv_lanemask_lt": lambda t: np.uint32((1 << t.lane) - 1),
        "_gv_fence": fence,
        "_gv_bdx": bdx, "_gv_bdy": bdy, "_gv_bdz": bdz,
        "_gv_gdx": gdx, "_gv_gdy": gdy, "_gv_gdz": gdz,
        "_gv_warpsize": 32,
        **BIT_FUNCTIONS,
        **one_value_hooks(),
        **comparison_hooks(),
        "_gv_as_stored": as_stored,
        "_gv_fn_min": min_or_max(False),
        "_gv_fn_max": min_or_max(True),
        "_gv_fn_int": to_int,
        **cast_hooks(),
        **math_hooks(),
    }  # fmt: skip


def fence(t) -> None:
    """A device-wide threadfence: the thread's later accesses carry the fence flag of its epoch, by which
    the race analysis orders its earlier ones (core/analysis/fence_order.py). Memory here is already
    seen by every thread as soon as it is written, so nothing else changes."""
    t.ep |= FENCED


def _count_static_shared(arrays: ArrayTable, shape, dtype: np.dtype) -> None:
    size = math.prod(shape) if isinstance(shape, tuple) else int(shape)
    arrays.static_shared += size * dtype.itemsize
    if arrays.static_shared > MAX_STATIC_SHARED:
        raise KernelLimit(
            f"the kernel declares {arrays.static_shared:,} bytes of static shared memory per block; at most "
            f"{MAX_STATIC_SHARED:,} bytes (48 KiB) are allowed (ptxas: 'uses too much shared data'); "
            f"use dynamic shared memory, kernel[grid, block, 0, nbytes] with cuda.shared.array(0, dtype)"
        )


def _shape_dtype(positional: tuple, keywords: dict) -> tuple:
    values = dict(zip(("shape", "dtype"), positional))
    values.update(keywords)
    return values["shape"], to_dtype(values["dtype"])


def grid_hooks(grid: tuple, block: tuple) -> dict:
    """`cuda.grid(n)` and `cuda.gridsize(n)` for both engines: the context's blockIdx and threadIdx
    are ints (one thread) or arrays (the vector engine's lanes), and the arithmetic is the same."""
    bdx, bdy, bdz = block
    gdx, gdy, gdz = grid

    def grid_index(t, ndim):
        x = t.bx * bdx + t.tx
        if ndim == 1:
            return x
        y = t.by * bdy + t.ty
        return (x, y) if ndim == 2 else (x, y, t.bz * bdz + t.tz)

    def gridsize(ndim):
        sizes = (bdx * gdx, bdy * gdy, bdz * gdz)
        return sizes[0] if ndim == 1 else sizes[:ndim]

    return {"_gv_grid": grid_index, "_gv_gridsize": gridsize}
