"""The kernel's body split at barriers: each phase a loop over the block's threads, loops with a barrier
split into loops around their phases, locals kept per thread across barriers (fast/translate.py)."""

from __future__ import annotations

import ast
import re

from gpuviz.backends.sim.fast.syntax import FastUnsupported, has_barrier, located, names_in, reads

AXES = (("tx", "_tx"), ("ty", "_ty"), ("tz", "_tz"))


class Phases:
    """Mixed into the translation's writer."""

    def _block_scalar(self, stmt: ast.stmt, depth: int) -> None:
        """`name = value` once for the block: every live thread pays the assignment."""
        if isinstance(stmt, ast.AugAssign):
            value = ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value)
            name = stmt.target.id
        else:
            value, name = stmt.value, stmt.targets[0].id
        self._emit(depth, f"{name} = {self._expr(located(value, stmt))}")
        self._emit(depth, "charge(_alive, _clk, _b * _tpb, _C_ALU)")

    def _region(self, body: list[ast.stmt], depth: int) -> None:
        """Statements every thread of the block runs alike: phases between barriers, loops split at them."""
        phase: list[ast.stmt] = []
        for stmt in body:
            if self._is_barrier_stmt(stmt):
                self._phase(phase, depth)
                self._barrier(depth)
                phase = []
            elif isinstance(stmt, ast.For) and has_barrier(stmt, self._is_barrier_node):
                self._phase(phase, depth)
                self._split_loop(stmt, depth)
                phase = []
            elif isinstance(stmt, ast.While) and has_barrier(stmt, self._is_barrier_node):
                self._phase(phase, depth)
                self._split_while(stmt, depth)
                phase = []
            elif self._is_block_scalar_assignment(stmt):
                self._phase(phase, depth)
                self._block_scalar(stmt, depth)
                phase = []
            elif has_barrier(stmt, self._is_barrier_node):
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
        if name in names_in(loop.body, ast.Store):
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

    def _phase(self, statements: list[ast.stmt], depth: int) -> None:
        statements = [s for s in statements if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if not statements:
            return
        read = {n.id for n in reads(statements)} & self.locals
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
        self._emit(d + 1, "_c0[_t] = _clk[_g]")
        self._emit(d + 1, "_n0[_t] = _Lc[_s] if _s >= 0 else 0")
        self._emit(d + 1, "_hsh[_g] = 0")
        self._emit(d + 1, "_ck = _clk[_g]  # the thread's clock, in a local while it runs (fast/accesses.py)")
        self._emit(d + 1, "_pv = np.uint64(0)  # the instructions it ran (a loop-free phase's bits)")
        self._emit(d + 1, "_rd = _F[3]  # reads since any thread last wrote (fast/access_hooks.py, _spin)")
        if not loop_free:
            self._emit(d + 1, "_hs = np.uint64(0)")
        axes_at = len(self.lines)
        for axis, local in AXES:
            self._emit(d + 1, f"{local} = {_thread_axis(axis)}")
        for name in restore:
            self._emit(d + 1, f"{name} = _keep_{name}[_t]")
        self._emit(d + 1, "_ret = False")
        self._emit(d + 1, "while True:")
        for stmt in statements:
            self._statement(stmt, d + 2)
        self._emit(d + 2, "break")
        self._drop_unused_axes(axes_at)
        self._emit(d + 1, "_clk[_g] = _ck")
        self._emit(d + 1, "_pm[_t] = _pv")
        self._emit(d + 1, "_F[3] = _rd")
        if not loop_free:
            self._emit(d + 1, "_hsh[_g] = join_paths(_hsh[_g], _hs)")
        self._emit(d + 1, "if _ret:")
        self._emit(d + 2, "_alive[_t] = False")
        self._emit(d + 2, "_end[_g] = _clk[_g]")
        self._emit(d + 2, "continue")
        for name in sorted((assigned | set(restore)) & self._read_elsewhere(statements)):
            if name not in self.kept_dtypes:  # its type is not known: the first thread to keep it sets it
                self._emit(d + 1, f"if not _have_{name}:")
                self._emit(d + 2, f"_keep_{name} = np.full(_tpb, {name})")
                self._emit(d + 2, f"_have_{name} = True")
            self._emit(d + 1, f"_keep_{name}[_t] = {name}")
            self.saved.add(name)
        if loop_free:  # lanes of a warp that parted are given their warp's times
            self._emit(d, f"settle(_PC[{len(self.phases)}], _SP, _before, _alive, _clk, _c0, _end, _pm, _rp, _n0, "
                          "_b * _tpb, _base, _L, _prefix)")  # fmt: skip
            self.phases.append(self.points)
        else:
            self._emit(d, "same_paths(_before, _hsh, _b * _tpb, _F)")
        self.points = None

    def _drop_unused_axes(self, at: int) -> None:
        """A thread's axes the phase never reads cost a division each, every thread and phase: not computed."""
        body = "\n".join(self.lines[at + len(AXES) :])
        for k in reversed(range(len(AXES))):
            if not re.search(rf"\b{AXES[k][1]}\b", body):
                del self.lines[at + k]

    def _read_elsewhere(self, statements: list[ast.stmt]) -> set[str]:
        """Locals this phase leaves that another phase reads (any phase: loops run phases again)."""
        inside = {id(n) for s in statements for n in ast.walk(s)}
        return {n.id for n in reads(self.source.node.body) if id(n) not in inside and n.id in self.locals}

    def _assigned_at_top(self, statements: list[ast.stmt]) -> set[str]:
        names = set()
        for stmt in statements:
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                names |= names_in([stmt], ast.Store)
        return names


def _thread_axis(axis: str) -> str:
    return {"tx": "_t % _bdx", "ty": "(_t // _bdx) % _bdy", "tz": "_t // (_bdx * _bdy)"}[axis]
