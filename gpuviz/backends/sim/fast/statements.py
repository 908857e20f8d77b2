"""Statements of a thread, translated: assignments, branches, loops and returns, each charging the vector
engine's costs (fast/translate.py)."""

from __future__ import annotations

import ast

from gpuviz.backends.sim.fast.syntax import FastUnsupported, located


class Statements:
    """Mixed into the translation's writer."""

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
            value = located(ast.BinOp(ast.Name(target.id, ast.Load()), stmt.op, stmt.value), stmt)
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
        self._store(located(ast.Subscript(target.value, index, ast.Store()), stmt),
                    located(ast.BinOp(old, stmt.op, stmt.value), stmt), d, stmt.lineno)  # fmt: skip

    def _stmt_If(self, stmt: ast.If, d: int) -> None:
        test = f"_c{stmt.lineno}_{stmt.col_offset}"
        self._emit(d, f"{test} = {self._expr(stmt.test)}")  # the condition's loads come before the branch
        self._charge("_C_BR", d)
        self._took(test, d)
        self._emit(d, f"if {test}:")
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
        self._emit(d + 2, f"_ck += {increment}")  # no lane parts over it in a phase with loops
        self._emit(d + 1, f"{first} = False")
        self._charge("_C_BR", d + 1)
        more = f"({counter} < {stop_v} if {step_v} > 0 else {counter} > {stop_v})"
        self._emit(d + 1, f"_more_{line}_{d} = {more}")
        self._took(f"_more_{line}_{d}", d + 1)
        self._emit(d + 1, f"if not _more_{line}_{d} or _F[0] != 0:  # a discarded run (a spin) stops")
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
        self._took(test, d + 1)
        self._emit(d + 1, f"if not {test} or _F[0] != 0:  # a discarded run (a spin) stops")
        self._emit(d + 2, "break")
        self._block(stmt.body, d + 1)
        self._emit(d, "if _ret:")
        self._emit(d + 1, "break")

    def _stmt_Break(self, stmt: ast.Break, d: int) -> None:
        self._emit(d, "break")

    def _stmt_Assert(self, stmt: ast.Assert, d: int) -> None:
        """As the vector engine: the test's costs, no branch; a thread that fails it ends the run, and the launch
        goes to the engines that word it (the vector engine, then the reference engine)."""
        test = f"_a{stmt.lineno}_{stmt.col_offset}"
        self._emit(d, f"{test} = {self._expr(stmt.test)}")
        self._emit(d, f"if not {test}:")
        self._emit(d + 1, "fault(_F, ASSERTED, _g)")

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
