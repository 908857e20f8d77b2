"""The GPU rewrite's table of shared-array declarations and access sites, and what the host can tell of
each shared array's shape and dtype before the launch.

numba needs a shared array's shape and dtype as compile-time constants: literals, globals, or a device
function's arguments that its callers pass as constants. The host evaluates them the same way: in the
declaring function's globals, and for a device function's parameters in its callers' (through callers
of callers). `cuda.shared.array(0, dtype)` is dynamic shared memory, sized by the launch.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from gpuviz.core.trace.columns import ATOMIC

MAX_PARAM_IDS = 32  # array ids 0-31: kernel parameters by position; 32-63: shared-array declarations
MAX_ARRAY_IDS = 64
FIRST_SITE, MAX_SITE = 2, 511  # as the GPU hooks number sites (ids 0 and 1 are their marks)
MAX_CALL_DEPTH = 16  # callers of callers followed for a parameter's value; deeper is not known
# A library object does not say its value type (CCCL's Invocable keeps only its code): float64 holds
# every int32 and float32 exactly.
LIBRARY_SLOT_DTYPE = "float64"


@dataclass
class CallSite:
    """A device function's call: the arguments its caller passes, in the caller's names."""

    caller: str
    params: list[str]
    args: list[str]
    keywords: dict[str, str]
    env: dict = field(repr=False)


@dataclass
class SharedSite:
    """A `cuda.shared.array` declaration: evaluated on the host to describe the array."""

    aid: int
    name: str
    shape: str
    dtype: str
    env: dict = field(repr=False)
    function: str = ""  # the declaring function; its parameters take their callers' values
    dynamic: bool = False  # set by describe(): shape 0, dynamic shared memory
    per_thread: bool = False  # a library call's slots: one a thread of the block (add_slots)


@dataclass
class SharedSites:
    """A program's shared-array declarations, its device-function calls, and its access sites: (line,
    kind) of every logged access, numbered from FIRST_SITE (the log stores the number; ids past
    MAX_SITE share one per kind)."""

    sites: list[SharedSite] = field(default_factory=list)
    accesses: list[tuple[int, int]] = field(default_factory=list)
    calls: dict[str, list[CallSite]] = field(default_factory=dict)  # by callee
    constants: dict[int, tuple[str, object]] = field(default_factory=dict)  # id: (name, module array)
    counting: set[int] = field(default_factory=set)  # lines with an atomic that adds a positive constant
    not_counting: set[int] = field(default_factory=set)  # lines with another atomic
    site_arrays: list[int | None] = field(default_factory=list)  # each site's array id, None where it varies

    def access_site(self, line: int, kind: int, counting: bool = False, array: int | None = None) -> int:
        """The id of an access site; `array`: its array's id where the site always names that array
        (the GPU recorder's narrow records leave the id out of the record then: backends/gpu/layout.py)."""
        if kind == ATOMIC:
            (self.counting if counting else self.not_counting).add(line)
        if FIRST_SITE + len(self.accesses) < MAX_SITE - 2:
            self.accesses.append((line, kind))
            self.site_arrays.append(array)
            return FIRST_SITE + len(self.accesses) - 1
        self.site_arrays.append(None)  # a shared id: no one array
        return MAX_SITE - 2 + kind  # too many sites: the line is lost, the kind is kept

    def counting_lines(self) -> list[int]:
        """Lines whose every atomic adds a positive constant: their updates of an element leave increasing
        values (core/analysis/fence_order.py orders them by those)."""
        return sorted(self.counting - self.not_counting)

    def site_table(self) -> list[tuple[int, int]]:
        """(line, kind) by site id (marks and unused ids have line 0); the many-sites ids have line 0."""
        table = [(0, 0)] * (MAX_SITE + 1)
        table[FIRST_SITE : FIRST_SITE + len(self.accesses)] = self.accesses
        for kind in range(3):
            table[MAX_SITE - 2 + kind] = (0, kind)
        return table

    def add(self, name: str, shape: str, dtype: str, env: dict, function: str = "") -> int | None:
        aid = MAX_PARAM_IDS + len(self.sites) + len(self.constants)
        if aid >= MAX_ARRAY_IDS:
            return None
        self.sites.append(SharedSite(aid, name, shape, dtype, env, function))
        return aid

    def add_slots(self, name: str) -> int | None:
        """An id for a library call's slots (CCCL's primitives on values in registers): one element a
        thread of the block, holding what the thread handed to the call and then what it got back. One
        array per callee, however many lines call it."""
        for site in self.sites:
            if site.per_thread and site.name == name:
                return site.aid
        aid = self.add(name, "", LIBRARY_SLOT_DTYPE, {})
        if aid is not None:
            self.sites[-1].per_thread = True
        return aid

    def add_constant(self, name: str, array) -> int | None:
        """An id for a module array that `cuda.const.array_like` copies (one per array, however many
        functions copy it): the log keeps its reads, and the host has its values."""
        for aid, (_, known) in self.constants.items():
            if known is array:
                return aid
        aid = MAX_PARAM_IDS + len(self.sites) + len(self.constants)
        if aid >= MAX_ARRAY_IDS:
            return None
        self.constants[aid] = (name, array)
        return aid

    def add_call(self, callee: str, call: CallSite) -> None:
        self.calls.setdefault(callee, []).append(call)

    def describe(self, site: SharedSite, shared_bytes: int = 0, threads_per_block: int = 0) -> tuple[tuple | None, str]:
        """(shape, dtype) of a shared array as its declaration gives them: dynamic shared memory holds
        the launch's `shared_bytes`; None for a shape the host cannot know; a dtype it cannot know is
        kept as bytes ("uint8"). A library call's slots hold one value a thread of the block."""
        import numpy as np

        if site.per_thread:
            return (threads_per_block,), site.dtype

        from gpuviz.core.dtypes import to_dtype

        names = {**site.env, **self.bindings(site.function)}
        try:
            dtype = to_dtype(_evaluate(site.dtype, names))
        except Exception:  # a dtype the host cannot evaluate: the trace keeps bytes
            dtype = np.dtype(np.uint8)
        try:
            shape = tuple(int(n) for n in np.atleast_1d(_evaluate(site.shape, names)).tolist())
        except Exception:  # a shape from the kernel's locals: not known here
            return None, str(dtype)
        site.dynamic = shape == (0,)
        if site.dynamic:
            return (shared_bytes // dtype.itemsize,), str(dtype)
        return shape, str(dtype)

    def bindings(self, function: str, depth: int = 0) -> dict[str, object]:
        """The values a function's parameters have at every call of it (a parameter whose calls pass
        different values, or one the host cannot evaluate, is left out)."""
        calls = self.calls.get(function, [])
        if not calls or depth >= MAX_CALL_DEPTH:
            return {}
        found: dict[str, list] = {}
        for call in calls:
            names = {**call.env, **self.bindings(call.caller, depth + 1)}
            given = dict(zip(call.params, call.args)) | call.keywords
            for param, text in given.items():
                try:
                    found.setdefault(param, []).append(_evaluate(text, names))
                except Exception:  # not a constant the host can evaluate
                    found.setdefault(param, []).append(_UNKNOWN)
        return {param: values[0] for param, values in found.items()
                if not any(v is _UNKNOWN for v in values) and _all_same(values)}  # fmt: skip


_UNKNOWN = object()


def _evaluate(text: str, names: dict) -> object:
    return eval(compile(ast.parse(text, mode="eval"), "<shape>", "eval"), dict(names))  # noqa: S307 - the user's constant


def _all_same(values: list) -> bool:
    first = values[0]
    try:
        return all(bool(v == first) for v in values[1:])
    except Exception:  # values that do not compare (arrays): not one constant
        return False
