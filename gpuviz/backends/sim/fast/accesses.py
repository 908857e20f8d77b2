"""Loads and stores of argument and shared arrays, translated into calls of the hooks (fast/access_hooks.py), and
the instruction bits and costs of a loop-free phase (fast/translate.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from gpuviz.backends.sim.fast.syntax import FastUnsupported, numpy_type

MAX_POINTS = 64  # instructions of a loop-free phase a warp's lanes may part over (bits of one word)
# the log's arrays, each on its own (fast/access_hooks.py says why)
_LOG = "_Li, _Lv, _Lt, _Ls, _Le, _Lp, _Lc, _Lk, _Ln"


@dataclass
class SharedDeclaration:
    name: str
    site: str  # as the vector engine names it (instrument/rewrite.py): kernel:line:column
    shape: tuple
    dtype: np.dtype


class Accesses:
    """Mixed into the translation's writer."""

    def _declare_shared(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and self._path(node.func) == "shared.array":
                    if not (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1
                            and isinstance(stmt.targets[0], ast.Name)):  # fmt: skip
                        raise FastUnsupported(f"a shared array not declared by `name = cuda.shared.array(...)` at the "
                                              f"kernel's top level (line {node.lineno})")  # fmt: skip
                    self._add_shared(stmt.targets[0].id, node)

    def _add_shared(self, name: str, call: ast.Call) -> None:
        given = dict(zip(("shape", "dtype"), call.args))
        given.update({k.arg: k.value for k in call.keywords})
        try:
            shape = tuple(np.atleast_1d(eval(ast.unparse(given["shape"]), dict(self.env))).tolist())  # noqa: S307
            dtype = np.dtype(numpy_type(eval(ast.unparse(given["dtype"]), dict(self.env))))  # noqa: S307
        except Exception as exc:
            raise FastUnsupported(f"a shared array whose shape or type is not a constant (line {call.lineno})") from exc
        if name in self.shared_names or 0 in shape or dtype.kind not in "biuf":
            raise FastUnsupported(f"the shared array {name} (dynamic, redeclared or of {dtype})")
        k = len(self.shared)
        site = f"{self.source.name}:{call.lineno}:{call.col_offset}"
        self.shared.append(SharedDeclaration(name, site, shape, dtype))
        self.shared_names[name] = k
        self.locals.discard(name)  # one array per block, not a value per thread
        self._emit(2, f"{name} = np.zeros({shape!r}, np.{dtype.name})")
        self._emit(2, f"_sw{k}f, _sw{k}s, _sw{k}t = shared_watch({name}.size)")

    def _parts(self, target: ast.Subscript) -> list[ast.expr]:
        index = target.slice
        parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(p, ast.Slice) for p in parts):
            raise FastUnsupported(f"slices of arrays (line {target.lineno})")
        return parts

    def _array(self, node: ast.expr) -> tuple[str, int, str, str]:
        """The array a subscript names: its source name, axes, space and watch state."""
        if not isinstance(node, ast.Name):
            raise FastUnsupported(f"an access to something that is not an argument or shared array (line "
                                  f"{node.lineno})")  # fmt: skip
        if node.id in self.shared_names:
            k = self.shared_names[node.id]
            return node.id, len(self.shared[k].shape), "shared", f"_sw{k}f, _sw{k}s, _sw{k}t"
        if node.id in self.ndims:
            k = self.array_params.index(node.id)
            return node.id, self.ndims[node.id], "global", f"_W{k}o, _W{k}f, _W{k}s, _W{k}t"
        raise FastUnsupported(f"an access to {node.id}, which is not an argument or shared array (line "
                              f"{node.lineno})")  # fmt: skip

    def _site(self, line: int, kind: int, array: str, cost: str) -> tuple[int, str]:
        """An access's number (its line, kind and array) and what marks its instruction as run: in a loop-free
        phase its bit, set in the thread's mask (a local, `_pv`, as the clock is)."""
        slot = (self.array_params.index(array) if array in self.ndims
                else len(self.array_params) + self.shared_names[array])  # fmt: skip
        point = self._point(cost)
        self.sites.append((line, kind, slot, point))
        return len(self.sites) - 1, f"(_pv := _pv | np.uint64({1 << point}))" if point >= 0 else "0"

    def _point(self, cost: str) -> int:
        if self.points is None:
            return -1
        if len(self.points) == MAX_POINTS:
            raise FastUnsupported(f"more than {MAX_POINTS} instructions between two barriers")
        self.points.append(cost)
        return len(self.points) - 1

    def _charge(self, cost: str, d: int) -> None:
        """One instruction of the thread's warp: its clock, and in a loop-free phase the instruction's bit."""
        self._emit(d, f"_ck += {cost}")
        point = self._point(cost)
        if point >= 0:
            self._emit(d, f"_pv |= np.uint64({1 << point})")

    def _taken(self, condition: str) -> str:
        """A condition inside an expression; in a phase with loops, the branch goes into the thread's path
        hash kept in memory (`_hsh`)."""
        return condition if self.points is not None else f"branch(_hsh, _g, {condition})"

    def _took(self, condition: str, d: int) -> None:
        """A statement's branch (`condition` a plain name); in a phase with loops, into the path hash kept in
        a local (`_hs`), which joins `_hsh` when the thread leaves the phase."""
        if self.points is None:
            self._emit(d, f"_hs = path_hash(_hs, {condition})")

    def _load(self, node: ast.Subscript) -> str:
        name, ndim, space, watch = self._array(node.value)
        parts = self._parts(node)
        if len(parts) != ndim:
            raise FastUnsupported(f"a row of an array (line {node.lineno})")
        index = ", ".join(self._expr(p) for p in parts)  # loads in the index come first
        cost = "_C_GL" if space == "global" else "_C_SL"
        site, bit = self._site(node.lineno, 0, name, cost)
        hook = "load_shared" if space == "shared" else "load"
        where = f"{site}, _g, _s, _b, _ep, _ph, {_advance(cost)}, {_LOG}, {watch}, _F, {bit}, (_rd := _rd + 1)"
        return f"{hook}{ndim}({name}, {index}, {where})"

    def _store(self, target: ast.Subscript, value: ast.expr, d: int, line: int) -> None:
        name, ndim, space, watch = self._array(target.value)
        parts = self._parts(target)
        if len(parts) != ndim:
            raise FastUnsupported(f"a store into a row of an array (line {line})")
        index = ", ".join(self._expr(p) for p in parts)  # the vector engine evaluates the index first
        stored = self._expr(value)
        cost = "_C_GS" if space == "global" else "_C_SS"
        site, bit = self._site(line, 1, name, cost)
        hook = "store_shared" if space == "shared" else "store"
        self._emit(d, f"{hook}{ndim}({name}, {index}, {stored}, {site}, _g, _s, _b, _ep, _ph, {_advance(cost)}, "
                      f"{_LOG}, {watch}, _F, {bit}, (_rd := _rd * 0))")  # fmt: skip


# numba types an assignment expression whose value is a binary operation, not a constant's or a comparison's
# (`(_rd := 0)` fails to type): every one here is a binary operation.
def _advance(cost: str) -> str:
    """The access's time, and the thread's clock past it: after the index's and the value's own loads (the
    arguments before it), as the vector engine orders them. The clock is a local (`_ck`), kept in a register
    where an array element would make every instruction wait for the last one's store."""
    return f"(_ck := _ck + {cost}) - {cost}"
