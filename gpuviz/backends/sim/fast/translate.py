"""The fast path's translation of a kernel into Python source that numba's CPU target compiles.

Each block becomes a loop over its threads, split at every `syncthreads` (loop fission, as CuPBoP and
POCL run GPU code on CPUs): a barrier at the kernel's top level, or inside a `for` loop over a range
that every thread runs alike, ends one loop over the threads and starts the next. Locals that live
across a barrier are kept per thread in arrays between the loops. Every load and store of an argument
or shared array calls a hook (fast/hooks.py) that logs it into the thread's fixed slots and watches
the element for another thread's access between the same barriers; every instruction the vector
engine charges (vector/lanes.py, vector/memory.py) adds the same cost to the thread's clock. A
thread's clock is its warp's when every lane of the warp takes one path: each branch taken goes into
a per-thread path hash, and a warp whose lanes' hashes differ sends the launch to the vector engine.

What it does not translate raises FastUnsupported with the reason, before anything runs.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpuviz.instrument.rewrite import LAUNCH_CONSTANTS, THREAD_ATTRS, cuda_path, environment
from gpuviz.instrument.source import KernelSource, source_of


class FastUnsupported(Exception):
    """A construct or launch the fast path does not run; the message says which (the vector engine runs it)."""


# Functions whose result numba's CPU code and NumPy compute bit for bit alike (others may differ in the last bit).
EXACT_MATH = {"sqrt", "floor", "ceil", "trunc", "fabs", "copysign"}
BUILTIN_CALLS = {"min", "max", "abs", "int", "float", "bool", "len", "range"}
NUMBER_TYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
                "boolean", "bool_", "intp", "uintp"}  # fmt: skip
MAX_POINTS = 64  # instructions of a loop-free phase a warp's lanes may part over (bits of one word)
COSTS = ("alu", "branch", "global_load", "global_store", "shared_load", "shared_store", "barrier")
THREAD_AXES = {"tx": "_tx", "ty": "_ty", "tz": "_tz", "bx": "_bx", "by": "_by", "bz": "_bz", "lane": "(_t % 32)"}


@dataclass
class SharedDeclaration:
    name: str
    site: str  # as the vector engine names it (instrument/rewrite.py): kernel:line:column
    shape: tuple
    dtype: np.dtype


@dataclass
class Translation:
    """The generated source and what the runner needs to know about it."""

    name: str
    source: str
    params: list[str]
    array_params: list[str]
    shared: list[SharedDeclaration]
    sites: list[tuple[int, int, int, int]] = field(default_factory=list)  # (line, kind, array slot, point) by site
    phases: list[list[str]] = field(default_factory=list)  # loop-free phases: each instruction's cost name
    digest: str = ""


def translate(func, arg_kinds: dict[str, int]) -> Translation:
    """`arg_kinds`: each parameter's number of axes (0 for a scalar)."""
    source = source_of(func)
    env = environment(func)
    writer = _Writer(source, env, arg_kinds)
    text = writer.module()
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return Translation(source.name, text, writer.params, writer.array_params, writer.shared, writer.sites,
                       writer.phases, digest)  # fmt: skip


def _names_in(nodes, ctx) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _reads(nodes) -> list[ast.Name]:
    """Names read: loaded, or updated in place (`acc += x` reads acc)."""
    found = []
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                found.append(n)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                found.append(n.target)
    return found


def _has_barrier(node: ast.AST, is_barrier) -> bool:
    return any(is_barrier(n) for n in ast.walk(node))


class _Writer:
    def __init__(self, source: KernelSource, env: dict, arg_kinds: dict[str, int]):
        self.source, self.env = source, env
        node = source.node
        if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.defaults:
            raise FastUnsupported("parameters with defaults, *args or keywords")
        self.params = [a.arg for a in node.args.args]
        self.array_params = [p for p in self.params if arg_kinds.get(p, 0) > 0]
        self.ndims = {p: arg_kinds[p] for p in self.array_params}
        self.locals = _names_in(node.body, ast.Store) - set(self.params)
        self.temps: set[str] = set()  # names this translation introduces (an index evaluated once)
        self.shared: list[SharedDeclaration] = []
        self.shared_names: dict[str, int] = {}
        self.sites: list[tuple[int, int, int]] = []
        self.block_scalars: set[str] = set()  # one value per block: loop variables of loops split at barriers,
        self._find_block_scalars()  # and locals every thread computes alike where every thread runs
        self.varying = self._varying_locals()
        self.saved: set[str] = set()  # locals kept per thread across a barrier so far
        self.lines: list[str] = []
        self.phases: list[list[str]] = []  # each loop-free phase's instructions (their costs), in lockstep order
        self.points: list[str] | None = None  # the current phase's, while it is loop-free

    # ---- the module ----------------------------------------------------------------------------
    def module(self) -> str:
        params = ", ".join(self.params)
        self.lines = []
        self._emit(
            0, f"def run_blocks(_blocks, _slot_base, {params}, _dims, _cost, _PC, _SP, _L, _W, _F, _clk, _end, _hsh):"
        )
        body = [
            "_bdx, _bdy, _bdz, _gdx, _gdy, _gdz = _dims[0], _dims[1], _dims[2], _dims[3], _dims[4], _dims[5]",
            "_tpb = _bdx * _bdy * _bdz",
            "_C_ALU, _C_BR, _C_GL, _C_GS, _C_SL, _C_SS, _C_BAR = "
            "_cost[0], _cost[1], _cost[2], _cost[3], _cost[4], _cost[5], _cost[6]",
            "_Li, _Lv, _Lt, _Ls, _Le, _Lp, _Lc, _Lk, _Ln = _L",
            *(f"_W{k}o, _W{k}f, _W{k}s, _W{k}t = _W[{k}]" for k in range(len(self.array_params))),
            "_alive = np.ones(_tpb, np.bool_)",
            "_before = np.ones(_tpb, np.bool_)",
            "_pm = np.zeros(_tpb, np.uint64)",
            "_rp = np.zeros(_tpb, np.int64)",
            "_c0 = np.zeros(_tpb, np.int64)",
            "_n0 = np.zeros(_tpb, np.int64)",
            "for _b in _blocks:",
        ]
        for text in body:
            self._emit(1, text)
        for text in ("_alive[:] = True", "_bx = _b % _gdx", "_by = (_b // _gdx) % _gdy", "_bz = _b // (_gdx * _gdy)",
                     "_base = _slot_base[_b]", "_F[1] += 1", "_ep = 0", "_ph = 0"):  # fmt: skip
            self._emit(2, text)
        self._declare_shared(self.source.node.body)
        self._region(self.source.node.body, 2)
        self._emit(2, "for _t in range(_tpb):")
        self._emit(3, "_g = _b * _tpb + _t")
        self._emit(3, "if _alive[_t]:")
        self._emit(4, "_end[_g] = _clk[_g]")
        flags = [f"    _have_{name} = False" for name in sorted(self.saved)]
        self.lines[1:1] = flags
        # numba's cache knows only this file: naming the hooks' own text here compiles anew when they change
        head = (f"# hooks {_hooks_digest()}\nimport math\nimport numpy as np\n"
                "from gpuviz.backends.sim.fast.hooks import *  # noqa: F403\n\n")  # fmt: skip
        return head + "\n".join(self.lines) + "\n"

    def _emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    # ---- shared arrays: one per block, hoisted out of the threads' loops ------------------------
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
            dtype = np.dtype(_numpy_type(eval(ast.unparse(given["dtype"]), dict(self.env))))  # noqa: S307
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

    # ---- regions split at barriers ----------------------------------------------------------
    def _region_statements(self) -> list[ast.stmt]:
        """Statements every thread of a block runs: the kernel's own, and those of loops with a barrier in them."""
        found, todo = [], list(self.source.node.body)
        while todo:
            stmt = todo.pop()
            found.append(stmt)
            if isinstance(stmt, (ast.For, ast.While)) and _has_barrier(stmt, self._is_barrier_node):
                todo += stmt.body
        return found

    def _find_block_scalars(self) -> None:
        """Locals assigned only where every thread runs, from values that do not differ between threads."""
        region = self._region_statements()
        where: dict[str, list] = {}
        for node in ast.walk(self.source.node):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for name in _names_in(targets, ast.Store):
                    where.setdefault(name, []).append(node)
        for stmt in region:
            if (
                isinstance(stmt, ast.For)
                and isinstance(stmt.target, ast.Name)
                and stmt in region
                and _has_barrier(stmt, self._is_barrier_node)
            ):
                self.block_scalars.add(stmt.target.id)
        changed = True
        while changed:
            changed = False
            for name, nodes in where.items():
                if name in self.block_scalars:
                    continue
                if all(n in region and _single_name_assignment(n) and self._uniform(n.value) for n in nodes):
                    self.block_scalars.add(name)
                    changed = True
        self.locals -= self.block_scalars

    def _is_block_scalar_assignment(self, stmt: ast.stmt) -> bool:
        target = (
            stmt.targets[0]
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            else getattr(stmt, "target", None)
        )
        return (
            isinstance(stmt, (ast.Assign, ast.AugAssign))
            and isinstance(target, ast.Name)
            and target.id in self.block_scalars
        )

    def _block_scalar(self, stmt: ast.stmt, depth: int) -> None:
        """`name = value` once for the block: every live thread pays the assignment."""
        if isinstance(stmt, ast.AugAssign):
            value = ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value)
            name = stmt.target.id
        else:
            value, name = stmt.value, stmt.targets[0].id
        self._emit(depth, f"{name} = {self._expr(_located(value, stmt))}")
        self._emit(depth, "charge(_alive, _clk, _b * _tpb, _C_ALU)")

    def _is_barrier_stmt(self, stmt: ast.stmt) -> bool:
        return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                and self._path(stmt.value.func) == "syncthreads" and not stmt.value.args)  # fmt: skip

    def _is_barrier_node(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        path = self._path(node.func)
        return path is not None and (path.startswith("syncthreads") or path == "this_grid" or "sync" in path)

    def _region(self, body: list[ast.stmt], depth: int) -> None:
        """Statements every thread of the block runs alike: phases between barriers, loops split at them."""
        phase: list[ast.stmt] = []
        for stmt in body:
            if self._is_barrier_stmt(stmt):
                self._phase(phase, depth)
                self._barrier(depth)
                phase = []
            elif isinstance(stmt, ast.For) and _has_barrier(stmt, self._is_barrier_node):
                self._phase(phase, depth)
                self._split_loop(stmt, depth)
                phase = []
            elif isinstance(stmt, ast.While) and _has_barrier(stmt, self._is_barrier_node):
                self._phase(phase, depth)
                self._split_while(stmt, depth)
                phase = []
            elif self._is_block_scalar_assignment(stmt):
                self._phase(phase, depth)
                self._block_scalar(stmt, depth)
                phase = []
            elif _has_barrier(stmt, self._is_barrier_node):
                raise FastUnsupported(f"a barrier or warp operation inside a branch, a while loop or an expression "
                                      f"(line {stmt.lineno})")  # fmt: skip
            else:
                phase.append(stmt)
        self._phase(phase, depth)

    def _barrier(self, depth: int) -> None:
        """Every live thread arrives; one that returned while others go on is barrier divergence (the vector
        engine words it)."""
        self._emit(depth, "barrier(_alive, _clk, _b * _tpb, _C_BAR, _F)")
        self._emit(depth, "_ep += 1")

    def _split_loop(self, loop: ast.For, depth: int) -> None:
        it = loop.iter
        if not (isinstance(it, ast.Call) and self._path_or_name(it.func) == "range" and 1 <= len(it.args) <= 3
                and isinstance(loop.target, ast.Name) and not loop.orelse):  # fmt: skip
            raise FastUnsupported(f"a loop with a barrier that is not `for name in range(...)` (line {loop.lineno})")
        if any(not self._uniform(a) for a in it.args):
            raise FastUnsupported(f"a loop with a barrier whose range may differ between threads (line {loop.lineno})")
        name = loop.target.id
        if name in _names_in(loop.body, ast.Store):
            raise FastUnsupported(f"a loop variable assigned in its loop (line {loop.lineno})")
        args = ", ".join(self._expr(a) for a in it.args)
        self._emit(depth, f"for {name} in range({args}):")
        # each iteration: the loop's test and the assignment of its variable, for every live thread
        self._emit(depth + 1, "charge(_alive, _clk, _b * _tpb, _C_BR + _C_ALU)")
        self._region(loop.body, depth + 1)
        self._emit(depth, "charge(_alive, _clk, _b * _tpb, _C_BR)  # the test that ends the loop")

    def _split_while(self, loop: ast.While, depth: int) -> None:
        if loop.orelse or not self._uniform(loop.test):
            raise FastUnsupported(f"a while loop with a barrier whose test may differ between threads (line "
                                  f"{loop.lineno})")  # fmt: skip
        self._emit(depth, "while True:")
        self._emit(depth + 1, f"_cw = {self._expr(loop.test)}")
        self._emit(depth + 1, "charge(_alive, _clk, _b * _tpb, _C_BR)")
        self._emit(depth + 1, "if not _cw:")
        self._emit(depth + 2, "break")
        self._region(loop.body, depth + 1)

    def _uniform(self, expr: ast.expr) -> bool:
        """Whether an expression has one value for every thread of a launch (parameters, constants)."""
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and (node.id in self.locals and node.id not in self.block_scalars):
                return False
            if isinstance(node, ast.Subscript) and not _is_shape(node, self.ndims):
                return False
            if isinstance(node, ast.Call) and self._path_or_name(node.func) not in ("int", "min", "max", "len"):
                return False
            if isinstance(node, ast.Attribute) and self._path(node) in THREAD_ATTRS:
                return False
        return True

    # ---- one phase: a loop over the block's threads ------------------------------------------
    def _phase(self, statements: list[ast.stmt], depth: int) -> None:
        statements = [s for s in statements if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if not statements:
            return
        read = {n.id for n in _reads(statements)} & self.locals
        restore = sorted(read & self.saved)
        assigned = self._assigned_at_top(statements)
        d = depth
        loop_free = not any(isinstance(n, (ast.For, ast.While)) for s in statements for n in ast.walk(s))
        self.points = [] if loop_free else None
        self._emit(d, "_before[:] = _alive")
        self._emit(d, "_ph += 1  # the vector engine logs a phase's accesses after the last phase's")
        self._emit(d, "for _t in range(_tpb):")
        self._emit(d + 1, "if not _alive[_t]:")
        self._emit(d + 2, "continue")
        self._emit(d + 1, "_g = _b * _tpb + _t")
        self._emit(d + 1, "_s = _base + _t if _base >= 0 else -1")
        self._emit(d + 1, "_pm[_t] = 0")
        self._emit(d + 1, "_c0[_t] = _clk[_g]")
        self._emit(d + 1, "_n0[_t] = _Lc[_s] if _s >= 0 else 0")
        self._emit(d + 1, "_hsh[_g] = 0")
        for axis, local in (("tx", "_tx"), ("ty", "_ty"), ("tz", "_tz")):
            self._emit(d + 1, f"{local} = {_thread_axis(axis)}")
        for name in restore:
            self._emit(d + 1, f"{name} = _keep_{name}[_t]")
        self._emit(d + 1, "_ret = False")
        self._emit(d + 1, "while True:")
        for stmt in statements:
            self._statement(stmt, d + 2)
        self._emit(d + 2, "break")
        self._emit(d + 1, "if _ret:")
        self._emit(d + 2, "_alive[_t] = False")
        self._emit(d + 2, "_end[_g] = _clk[_g]")
        self._emit(d + 2, "continue")
        for name in sorted((assigned | set(restore)) & self._read_elsewhere(statements)):
            self._emit(d + 1, f"if not _have_{name}:")  # the first thread to keep it sets its type
            self._emit(d + 2, f"_keep_{name} = np.full(_tpb, {name})")
            self._emit(d + 2, f"_have_{name} = True")
            self._emit(d + 1, f"_keep_{name}[_t] = {name}")
            self.saved.add(name)
        if loop_free:  # lanes of a warp that parted are given their warp's times
            self._emit(d, f"settle(_PC[{len(self.phases)}], _SP, _before, _alive, _clk, _c0, _end, _pm, _rp, _n0, "
                          "_b * _tpb, _base, _L)")  # fmt: skip
            self.phases.append(self.points)
        else:
            self._emit(d, "same_paths(_before, _hsh, _b * _tpb, _F)")
        self.points = None

    def _read_elsewhere(self, statements: list[ast.stmt]) -> set[str]:
        """Locals this phase leaves that another phase reads (any phase: loops run phases again)."""
        inside = {id(n) for s in statements for n in ast.walk(s)}
        return {n.id for n in _reads(self.source.node.body) if id(n) not in inside and n.id in self.locals}

    def _assigned_at_top(self, statements: list[ast.stmt]) -> set[str]:
        names = set()
        for stmt in statements:
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                names |= _names_in([stmt], ast.Store)
        return names

    # ---- statements ------------------------------------------------------------------------
    def _statement(self, stmt: ast.stmt, d: int) -> None:
        method = getattr(self, f"_stmt_{type(stmt).__name__}", None)
        if method is None:
            raise FastUnsupported(f"{type(stmt).__name__} statements (line {stmt.lineno})")
        method(stmt, d)

    def _stmt_Pass(self, stmt: ast.Pass, d: int) -> None:
        self._emit(d, "pass")

    def _stmt_Expr(self, stmt: ast.Expr, d: int) -> None:
        if isinstance(stmt.value, ast.Constant):
            return
        raise FastUnsupported(f"a call as a statement (line {stmt.lineno})")

    def _stmt_Assign(self, stmt: ast.Assign, d: int) -> None:
        if len(stmt.targets) != 1:
            raise FastUnsupported(f"chained assignments (line {stmt.lineno})")
        target, value = stmt.targets[0], stmt.value
        if isinstance(value, ast.Call) and self._path(value.func) == "shared.array":
            self._charge("_C_ALU", d)  # the vector engine merges the name: an assignment
            return
        if isinstance(target, ast.Name):
            self._assign_name(target.id, self._expr(value), d)
        elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                temps = [f"_v{k}_{stmt.lineno}" for k in range(len(value.elts))]
                for temp, element in zip(temps, value.elts):
                    self._emit(d, f"{temp} = {self._expr(element)}")
            else:
                whole = f"_v_{stmt.lineno}"
                self._emit(d, f"{whole} = {self._expr(value)}")
                temps = [f"{whole}[{k}]" for k in range(len(target.elts))]
            for element, temp in zip(target.elts, temps):
                self._assign_name(element.id, temp, d)
        elif isinstance(target, ast.Subscript):
            self._store(target, value, d, stmt.lineno)
        else:
            raise FastUnsupported(f"an assignment to {type(target).__name__} (line {stmt.lineno})")

    def _assign_name(self, name: str, value: str, d: int) -> None:
        if name in self.shared_names or name in self.params or name in self.block_scalars:
            raise FastUnsupported(f"an assignment to {name}, a parameter, shared array or loop variable")
        self._emit(d, f"{name} = {value}")
        self._charge("_C_ALU", d)

    def _stmt_AugAssign(self, stmt: ast.AugAssign, d: int) -> None:
        target = stmt.target
        if isinstance(target, ast.Name):
            value = _located(ast.BinOp(ast.Name(target.id, ast.Load()), stmt.op, stmt.value), stmt)
            self._assign_name(target.id, self._expr(value), d)
            return
        if not isinstance(target, ast.Subscript):
            raise FastUnsupported(f"an augmented assignment to {type(target).__name__} (line {stmt.lineno})")
        parts = self._parts(target)
        temps = [f"_i{k}_{stmt.lineno}" for k in range(len(parts))]
        self.temps.update(temps)
        for temp, part in zip(temps, parts):
            self._emit(d, f"{temp} = {self._expr(part)}")
        kept = [ast.Name(t, ast.Load()) for t in temps]
        index = ast.Tuple(kept, ast.Load()) if len(kept) > 1 else kept[0]
        old = ast.Subscript(target.value, index, ast.Load())
        self._store(_located(ast.Subscript(target.value, index, ast.Store()), stmt),
                    _located(ast.BinOp(old, stmt.op, stmt.value), stmt), d, stmt.lineno)  # fmt: skip

    def _stmt_If(self, stmt: ast.If, d: int) -> None:
        test = f"_c{stmt.lineno}_{stmt.col_offset}"
        self._emit(d, f"{test} = {self._expr(stmt.test)}")  # the condition's loads come before the branch
        self._charge("_C_BR", d)
        self._emit(d, f"if {self._taken(test)}:")
        self._block(stmt.body, d + 1)
        if stmt.orelse:
            self._emit(d, "else:")
            self._block(stmt.orelse, d + 1)

    def _block(self, body: list[ast.stmt], d: int) -> None:
        for stmt in body:
            self._statement(stmt, d)
        if not body:
            self._emit(d, "pass")

    def _stmt_For(self, stmt: ast.For, d: int) -> None:
        it = stmt.iter
        if not (isinstance(it, ast.Call) and self._path_or_name(it.func) == "range" and 1 <= len(it.args) <= 3
                and isinstance(stmt.target, ast.Name) and not stmt.orelse and not it.keywords):  # fmt: skip
            raise FastUnsupported(f"for loops over anything but range() (line {stmt.lineno})")
        name, line = stmt.target.id, stmt.lineno
        args = [self._expr(a) for a in it.args]
        start, stop, step = ("0", args[0], "1") if len(args) == 1 else (*args, "1")[:3]
        # the vector engine increments a counter held per lane (one whose start differs between lanes)
        # with an assignment, and a plain number for free
        increment = "_C_ALU" if self._start_varies(it.args[0] if len(it.args) > 1 else None, line) else "0"
        counter, stop_v, step_v, first = (
            f"_k_{line}_{d}",
            f"_stop_{line}_{d}",
            f"_step_{line}_{d}",
            f"_first_{line}_{d}",
        )
        self._emit(d, f"{counter} = np.int64({start})")
        self._emit(d, f"{stop_v} = np.int64({stop})")
        self._emit(d, f"{step_v} = np.int64({step})")
        self._emit(d, f"if {step_v} == 0:")
        self._emit(d + 1, "raise ValueError('range() arg 3 must not be zero')")
        self._emit(d, f"{first} = True")
        self._emit(d, "while True:")
        self._emit(d + 1, f"if not {first}:")
        self._emit(d + 2, f"{counter} += {step_v}")
        self._emit(d + 2, f"_clk[_g] += {increment}")  # no lane parts over it in a phase with loops
        self._emit(d + 1, f"{first} = False")
        self._charge("_C_BR", d + 1)
        more = f"({counter} < {stop_v} if {step_v} > 0 else {counter} > {stop_v})"
        self._emit(d + 1, f"if not {self._taken(more)}:")
        self._emit(d + 2, "break")
        self._emit(d + 1, f"{name} = {counter}")
        self._charge("_C_ALU", d + 1)
        self._block(stmt.body, d + 1)
        self._emit(d, "if _ret:")
        self._emit(d + 1, "break")

    def _stmt_While(self, stmt: ast.While, d: int) -> None:
        if stmt.orelse:
            raise FastUnsupported(f"loops with an else branch (line {stmt.lineno})")
        self._emit(d, "while True:")
        test = f"_c{stmt.lineno}_{stmt.col_offset}"
        self._emit(d + 1, f"{test} = {self._expr(stmt.test)}")
        self._charge("_C_BR", d + 1)
        self._emit(d + 1, f"if not {self._taken(test)}:")
        self._emit(d + 2, "break")
        self._block(stmt.body, d + 1)
        self._emit(d, "if _ret:")
        self._emit(d + 1, "break")

    def _stmt_Break(self, stmt: ast.Break, d: int) -> None:
        self._emit(d, "break")

    def _stmt_Continue(self, stmt: ast.Continue, d: int) -> None:
        self._emit(d, "continue")

    def _stmt_Return(self, stmt: ast.Return, d: int) -> None:
        if stmt.value is not None and not (isinstance(stmt.value, ast.Constant) and stmt.value.value is None):
            raise FastUnsupported(f"a kernel that returns a value (line {stmt.lineno})")
        if self.points is not None:  # where it returned: its end is its warp's time there
            self.points.append("0")
            self._emit(d, f"_rp[_t] = {len(self.points) - 1}")
        self._emit(d, "_ret = True")
        self._emit(d, "break")

    def _start_varies(self, start: ast.expr | None, line: int) -> bool:
        """Whether the vector engine holds a range's counter per lane: its start differs between lanes."""
        if start is None or self._uniform(start):
            return False
        if self._varies(start):
            return True
        raise FastUnsupported(f"a range whose start may or may not differ between threads (line {line})")

    def _varying_locals(self) -> set[str]:
        """Locals every assignment of which gives each thread its own value (the vector engine holds them
        per lane): found by repeating the rule until nothing changes."""
        assignments: dict[str, list[ast.expr | None]] = {}
        for node in ast.walk(self.source.node):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    values = (
                        node.value.elts
                        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                        else [node.value] * len(target.elts)
                        if isinstance(target, ast.Tuple)
                        else [node.value]
                    )
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    for name, value in zip(names, values):
                        if isinstance(name, ast.Name):
                            assignments.setdefault(name.id, []).append(value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                assignments.setdefault(node.target.id, []).append(ast.BinOp(node.target, node.op, node.value))
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                args = node.iter.args if isinstance(node.iter, ast.Call) else []
                assignments.setdefault(node.target.id, []).append(args[0] if len(args) > 1 else None)
        varying: set[str] = set()
        self.varying = varying
        changed = True
        while changed:
            changed = False
            for name, values in assignments.items():
                if name not in varying and all(v is not None and self._varies(v) for v in values):
                    varying.add(name)
                    changed = True
        return varying

    def _varies(self, expr: ast.expr) -> bool:
        for node in ast.walk(expr):
            if isinstance(node, ast.Attribute) and self._path(node) in THREAD_ATTRS:
                return True
            if isinstance(node, ast.Call) and self._path(node.func) == "grid":
                return True
            if isinstance(node, ast.Name) and node.id in self.varying:
                return True
        return False

    # ---- memory ------------------------------------------------------------------------------
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
        """An access's number (its line, kind and array) and, in a loop-free phase, its instruction's bit."""
        slot = (self.array_params.index(array) if array in self.ndims
                else len(self.array_params) + self.shared_names[array])  # fmt: skip
        point = self._point(cost)
        self.sites.append((line, kind, slot, point))
        return len(self.sites) - 1, f"np.uint64({1 << point if point >= 0 else 0})"

    def _point(self, cost: str) -> int:
        if self.points is None:
            return -1
        if len(self.points) == MAX_POINTS:
            raise FastUnsupported(f"more than {MAX_POINTS} instructions between two barriers")
        self.points.append(cost)
        return len(self.points) - 1

    def _charge(self, cost: str, d: int) -> None:
        """One instruction of the thread's warp: its clock, and in a loop-free phase the instruction's bit."""
        self._emit(d, f"_clk[_g] += {cost}")
        point = self._point(cost)
        if point >= 0:
            self._emit(d, f"_pm[_t] |= np.uint64({1 << point})")

    def _taken(self, condition: str) -> str:
        """A condition; in a phase with loops, the branch goes into the thread's path hash."""
        return condition if self.points is not None else f"branch(_hsh, _g, {condition})"

    def _load(self, node: ast.Subscript) -> str:
        name, ndim, space, watch = self._array(node.value)
        parts = self._parts(node)
        if len(parts) != ndim:
            raise FastUnsupported(f"a row of an array (line {node.lineno})")
        index = ", ".join(self._expr(p) for p in parts)  # loads in the index come first
        cost = "_C_GL" if space == "global" else "_C_SL"
        site, bit = self._site(node.lineno, 0, name, cost)
        hook = "load_shared" if space == "shared" else "load"
        where = f"{site}, _g, _s, _b, _ep, _ph, {cost}, _clk, {_LOG}, {watch}, _F, _pm, _t, {bit}"
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
        self._emit(d, f"{hook}{ndim}({name}, {index}, {stored}, {site}, _g, _s, _b, _ep, _ph, {cost}, _clk, {_LOG}, "
                      f"{watch}, _F, _pm, _t, {bit})")  # fmt: skip

    # ---- expressions -------------------------------------------------------------------------
    def _expr(self, node: ast.expr) -> str:
        method = getattr(self, f"_expr_{type(node).__name__}", None)
        if method is None:
            raise FastUnsupported(f"{type(node).__name__} expressions (line {getattr(node, 'lineno', '?')})")
        return method(node)

    def _expr_Constant(self, node: ast.Constant) -> str:
        if isinstance(node.value, (bool, int, float)) or node.value is None:
            return repr(node.value)
        raise FastUnsupported(f"the constant {node.value!r} (line {node.lineno})")

    def _expr_Name(self, node: ast.Name) -> str:
        if node.id in self.locals or node.id in self.params or node.id in self.block_scalars or node.id in self.temps:
            return node.id
        if node.id in ("True", "False", "None"):
            return node.id
        value = self.env.get(node.id, getattr(builtins, node.id, None))
        if isinstance(value, bool):
            return repr(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return repr(value) if math.isfinite(value) else f"np.float64({value!r})"
        if isinstance(value, (np.integer, np.floating)):
            return f"np.{value.dtype.name}({value.item()!r})"
        raise FastUnsupported(f"the global {node.id} (line {node.lineno})")

    def _expr_Attribute(self, node: ast.Attribute) -> str:
        path = self._path(node)
        if path in THREAD_ATTRS:
            axis = THREAD_ATTRS[path]
            if axis not in THREAD_AXES:
                raise FastUnsupported(f"cuda.{path} (line {node.lineno})")
            return THREAD_AXES[axis]
        if path in LAUNCH_CONSTANTS:
            return LAUNCH_CONSTANTS[path].replace("_gv", "")
        if node.attr in ("size", "shape", "ndim") and isinstance(node.value, ast.Name) and node.value.id in self.ndims:
            return f"{node.value.id}.{node.attr}"
        raise FastUnsupported(f"the attribute {ast.unparse(node)} (line {node.lineno})")

    def _expr_Subscript(self, node: ast.Subscript) -> str:
        value = node.value
        if (isinstance(value, ast.Attribute) and value.attr == "shape" and isinstance(value.value, ast.Name)
                and value.value.id in self.ndims and isinstance(node.slice, ast.Constant)):  # fmt: skip
            return f"{value.value.id}.shape[{node.slice.value}]"
        if isinstance(value, ast.Name) and value.id in self.locals and isinstance(node.slice, ast.Constant):
            return f"{value.id}[{node.slice.value}]"  # an element of a local tuple
        return self._load(node)

    def _expr_BinOp(self, node: ast.BinOp) -> str:
        if isinstance(node.op, ast.MatMult):
            raise FastUnsupported(f"the operator @ (line {node.lineno})")
        return f"({self._expr(node.left)} {_OPS[type(node.op)]} {self._expr(node.right)})"

    def _expr_UnaryOp(self, node: ast.UnaryOp) -> str:
        op = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not ", ast.Invert: "~"}[type(node.op)]
        return f"({op}{self._expr(node.operand)})"

    def _expr_BoolOp(self, node: ast.BoolOp) -> str:
        word = " and " if isinstance(node.op, ast.And) else " or "
        values = [self._expr(v) for v in node.values]
        loads = [any(isinstance(n, ast.Subscript) for n in ast.walk(v)) for v in node.values]
        # where a later operand loads, whether it ran is a path taken: into the hash
        text = [v if k == len(values) - 1 or not any(loads[k + 1 :]) else self._taken(v)
                for k, v in enumerate(values)]  # fmt: skip
        return "(" + word.join(text) + ")"

    def _expr_Compare(self, node: ast.Compare) -> str:
        text = self._expr(node.left)
        for op, right in zip(node.ops, node.comparators):
            text += f" {_CMP[type(op)]} {self._expr(right)}"
        return f"({text})"

    def _expr_IfExp(self, node: ast.IfExp) -> str:
        test = self._expr(node.test)
        loads = any(isinstance(n, ast.Subscript) for side in (node.body, node.orelse) for n in ast.walk(side))
        if loads:
            test = self._taken(test)
        return f"({self._expr(node.body)} if {test} else {self._expr(node.orelse)})"

    def _expr_Tuple(self, node: ast.Tuple) -> str:
        return "(" + "".join(f"{self._expr(e)}, " for e in node.elts) + ")"

    def _expr_Call(self, node: ast.Call) -> str:
        if node.keywords:
            raise FastUnsupported(f"keyword arguments (line {node.lineno})")
        path = self._path(node.func)
        args = [self._expr(a) for a in node.args]
        dims = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if path == "grid" and dims in _GRID:
            return _GRID[dims]
        if path == "gridsize" and dims in (1, 2):
            return {1: "(_bdx * _gdx)", 2: "(_bdx * _gdx, _bdy * _gdy)"}[dims]
        if path in NUMBER_TYPES:
            return f"np.{_numpy_name(path)}({', '.join(args)})"
        if path is not None:
            raise FastUnsupported(f"cuda.{path} (line {node.lineno})")
        target = self._resolve(node.func)
        module = getattr(target, "__module__", None) or ""
        name = getattr(target, "__name__", "")
        if (
            target is not None
            and type(target).__module__.startswith("numba.core.types")
            and hasattr(target, "bitwidth")
        ):
            return f"np.{_numpy_name(str(target))}({', '.join(args)})"
        if target is getattr(builtins, name, None) and name in BUILTIN_CALLS - {"range"}:
            return f"{name}({', '.join(args)})"
        if module == "math" and name in EXACT_MATH:
            return f"math.{name}({', '.join(args)})"
        if isinstance(target, type) and issubclass(target, np.generic) and target().dtype.kind in "biuf":
            return f"np.{np.dtype(target).name}({', '.join(args)})"
        raise FastUnsupported(f"the call {ast.unparse(node.func)}() (line {node.lineno})")

    # ---- names ------------------------------------------------------------------------------
    def _path(self, node: ast.expr) -> str | None:
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.locals or node.id in self.params:
            return None
        if node.id not in self.env:
            return None
        return cuda_path(self.env[node.id], list(reversed(chain)))

    def _path_or_name(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name) and node.id not in self.locals and node.id not in self.env:
            return node.id
        return self._path(node)

    def _resolve(self, func: ast.expr) -> object:
        chain = []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or func.id in self.locals or func.id in self.params:
            return None
        value = self.env[func.id] if func.id in self.env else getattr(builtins, func.id, None)
        for attr in reversed(chain):
            value = getattr(value, attr, None)
        return value


def _is_shape(node: ast.Subscript, arrays: dict) -> bool:
    """`a.shape[k]` of an array argument: one value for every thread."""
    value = node.value
    return (isinstance(value, ast.Attribute) and value.attr == "shape" and isinstance(value.value, ast.Name)
            and value.value.id in arrays and isinstance(node.slice, ast.Constant))  # fmt: skip


def _single_name_assignment(node: ast.AST) -> bool:
    if isinstance(node, ast.AugAssign):
        return True
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)


_LOG = "_Li, _Lv, _Lt, _Ls, _Le, _Lp, _Lc, _Lk, _Ln"  # the log's arrays, each on its own (fast/hooks.py says why)


def _hooks_digest() -> str:
    from gpuviz.backends.sim.fast import hooks

    return hashlib.sha1(Path(hooks.__file__).read_bytes()).hexdigest()[:16]


def _located(node: ast.AST, where: ast.AST) -> ast.AST:
    """A node built here, given the user's line (for messages that name it)."""
    return ast.fix_missing_locations(ast.copy_location(node, where))


def _thread_axis(axis: str) -> str:
    return {"tx": "_t % _bdx", "ty": "(_t // _bdx) % _bdy", "tz": "_t // (_bdx * _bdy)"}[axis]


def _numpy_type(value: object) -> object:
    if type(value).__module__.startswith("numba.core.types"):
        return np.dtype(_numpy_name(str(value)))
    return value


def _numpy_name(name: str) -> str:
    return {"boolean": "bool_", "intp": "int64", "uintp": "uint64"}.get(name, name)


_GRID = {1: "(_bx * _bdx + _tx)", 2: "(_bx * _bdx + _tx, _by * _bdy + _ty)",
         3: "(_bx * _bdx + _tx, _by * _bdy + _ty, _bz * _bdz + _tz)"}  # fmt: skip
_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
        ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&"}  # fmt: skip
_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
        ast.IsNot: "is not"}  # fmt: skip
