"""Facts about a kernel the translation needs before writing a line: which locals differ between threads,
which hold one value per block, what a name resolves to (fast/translate.py)."""

from __future__ import annotations

import ast
import builtins

from gpuviz.backends.sim.fast.syntax import FastUnsupported, has_barrier, is_shape, names_in, single_name_assignment
from gpuviz.instrument.rewrite import THREAD_ATTRS, cuda_path


class KernelFacts:
    """Mixed into the translation's writer: reads its source, env, locals, params and block scalars."""

    def _region_statements(self) -> list[ast.stmt]:
        """Statements every thread of a block runs: the kernel's own, and those of loops with a barrier in them."""
        found, todo = [], list(self.source.node.body)
        while todo:
            stmt = todo.pop()
            found.append(stmt)
            if isinstance(stmt, (ast.For, ast.While)) and has_barrier(stmt, self._is_barrier_node):
                todo += stmt.body
        return found

    def _find_block_scalars(self) -> None:
        """Locals assigned only where every thread runs, from values that do not differ between threads."""
        region = self._region_statements()
        where: dict[str, list] = {}
        for node in ast.walk(self.source.node):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for name in names_in(targets, ast.Store):
                    where.setdefault(name, []).append(node)
        for stmt in region:
            if (
                isinstance(stmt, ast.For)
                and isinstance(stmt.target, ast.Name)
                and stmt in region
                and has_barrier(stmt, self._is_barrier_node)
            ):
                self.block_scalars.add(stmt.target.id)
        changed = True
        while changed:
            changed = False
            for name, nodes in where.items():
                if name in self.block_scalars:
                    continue
                if all(n in region and single_name_assignment(n) and self._uniform(n.value) for n in nodes):
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

    def _is_barrier_stmt(self, stmt: ast.stmt) -> bool:
        return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                and self._path(stmt.value.func) == "syncthreads" and not stmt.value.args)  # fmt: skip

    def _is_barrier_node(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        path = self._path(node.func)
        return path is not None and (path.startswith("syncthreads") or path == "this_grid" or "sync" in path)

    def _uniform(self, expr: ast.expr) -> bool:
        """Whether an expression has one value for every thread of a launch (parameters, constants)."""
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and (node.id in self.locals and node.id not in self.block_scalars):
                return False
            if isinstance(node, ast.Subscript) and not is_shape(node, self.ndims):
                return False
            if isinstance(node, ast.Call) and self._path_or_name(node.func) not in ("int", "min", "max", "len"):
                return False
            if isinstance(node, ast.Attribute) and self._path(node) in THREAD_ATTRS:
                return False
        return True

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
