"""An estimate of a kernel's registers per thread from its source, for traces no compiler reported
registers for (the simulator's): the most register words its values hold at one point of the kernel
(a liveness count over the syntax tree), scaled by a line fitted to ptxas's figures.

The method, and what it leaves out:
- Each local, and each parameter the kernel reads, is live from its first definition to its last use;
  a value used inside a loop that it was defined before, or that the loop carries (`s += ...`), is live
  over the whole loop. A statement's array reads are live together while it runs (compilers issue a
  statement's loads before its arithmetic, to overlap their latencies).
- A value takes 2 registers (64-bit: numba's default integers and floats, indices, pointers) unless it
  is plainly 32-bit: read from a 32-bit array, made by `float32(...)`/`int32(...)`, `threadIdx`/
  `blockIdx`/`blockDim`, or arithmetic on 32-bit values only. An array argument is its data pointer
  (2) and, when the kernel reads `.size`/`.shape`, its extents (2 each).
- registers = INTERCEPT + SLOPE x the peak, rounded, at least 8 (the ABI's reserved ones) and at most
  255: fitted by least squares to half of the kernels in tests/data/ptxas_registers.json (ptxas 13.5,
  sm_90) and checked on the other half: every kernel within 15 registers, 5 on average on each half
  (tests/test_register_estimate.py).
- Not seen: device functions' own values (the kernel's source only), what the compiler folds or
  rematerialises, and small local arrays ptxas keeps in registers (they count as local memory here).
"""

from __future__ import annotations

import ast
import collections
import functools
import re
import textwrap
from dataclasses import dataclass, field

import numpy as np

# Fitted on the even-numbered kernels of tests/data/ptxas_registers.json (see the module's docstring).
INTERCEPT = 6.40
SLOPE = 0.938
WIDE, NARROW = 2, 1
NARROW_CALLS = {"float32", "int32", "uint32", "int16", "uint16", "int8", "uint8", "float16", "np.float32",
                "np.int32", "np.uint32"}  # fmt: skip
NARROW_ATTRIBUTES = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
NARROW_DTYPES = {"float32", "int32", "uint32", "int16", "uint16", "int8", "uint8", "float16", "bool"}


@dataclass
class _Value:
    first: int = 1 << 30
    last: int = -1
    narrow: bool = False
    carried: set[int] = field(default_factory=set)  # loops that update it in place


@dataclass
class _Kernel:
    """Positions of each value's definitions and uses, in statement order, and the loops' spans."""

    narrow_arrays: set[str]
    values: dict[str, _Value] = field(default_factory=dict)
    loops: list[tuple[int, int]] = field(default_factory=list)
    reads: dict[int, int] = field(default_factory=dict)  # statement -> register words of its array reads
    position: int = 0


def estimate_registers(source: str, array_dtypes: dict[str, str], name: str | None = None) -> int | None:
    """Registers per thread the kernel `name` (else the source's first function) is estimated to use
    (None where the source does not parse); `array_dtypes` names each array parameter's dtype."""
    return _estimate(source, tuple(sorted(array_dtypes.items())), name)


def clear_cache() -> None:
    """Forget every kernel source's estimate and syntax tree (a bench times the analyses as a kernel's
    first launch meets them)."""
    for cached in (_estimate, local_array_bytes, _parsed, _function, _function_nodes):
        cached.cache_clear()


@functools.lru_cache(maxsize=64)
def _estimate(source: str, array_dtypes: tuple, name: str | None) -> int | None:
    """estimate_registers, once per kernel source: every launch of a kernel (and both of the memory
    report's questions) would parse and walk the same script again."""
    peak = register_words(source, dict(array_dtypes), name)
    return None if peak is None else int(min(255, max(8, round(INTERCEPT + SLOPE * peak))))


def register_words(source: str, array_dtypes: dict[str, str], name: str | None = None) -> int | None:
    """The most register words the kernel's values hold at one statement (the estimate's input)."""
    function = _function(source, name)
    if function is None:
        return None
    kernel = _Kernel({n for n, d in array_dtypes.items() if str(d) in NARROW_DTYPES})
    params = [a.arg for a in function.args.args]
    for param in params:
        kernel.values[param] = _Value(first=0, narrow=False)  # numba passes Python numbers as 64-bit
    kernel.position = 1
    _walk(kernel, function.body, loop_stack=[])
    return _peak(kernel, set(array_dtypes), _extents(_function_nodes(source, name), set(array_dtypes)))


@functools.lru_cache(maxsize=64)
def local_array_bytes(source: str, name: str | None = None) -> int:
    """Bytes of the kernel's `cuda.local.array(shape, dtype)` declarations whose shape is literal numbers
    and whose dtype is a plain name (float32, np.int64, ...); others are left out. Once per kernel source."""
    total = 0
    for node in _function_nodes(source, name):
        if isinstance(node, ast.Call) and _is_local_array(node.func) and len(node.args) == 2:
            try:
                shape = ast.literal_eval(node.args[0])
                size = int(np.prod(shape)) * np.dtype(ast.unparse(node.args[1]).split(".")[-1]).itemsize
            except (ValueError, TypeError, SyntaxError):
                continue
            total += size
    return total


def _is_local_array(func: ast.expr) -> bool:
    """Whether a call's function reads `...local.array` (cuda.local.array); unparsed only where it may."""
    return isinstance(func, ast.Attribute) and func.attr == "array" and ast.unparse(func).endswith("local.array")


def _nodes(node: ast.AST) -> list[ast.AST]:
    """Every node under `node` (itself included), in no particular order: ast.walk's generic field
    iteration costs most of an estimate, which a kernel's first launch pays."""
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        found.append(node)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return found


@functools.lru_cache(maxsize=64)
def _function(source: str, name: str | None) -> ast.FunctionDef | None:
    """The first function named `name` (else the first function) in ast.walk's breadth-first order, with
    only statements searched (and the handlers and cases that hold them): only they can define one."""
    alone = _function_alone(source, name) if name else None
    if alone is not None:
        return alone
    tree = _parsed(source)
    queue = collections.deque([tree] if tree is not None else [])
    while queue:
        node = queue.popleft()
        if isinstance(node, ast.FunctionDef) and (name is None or node.name == name):
            return node
        for name_of_field in node._fields:
            value = getattr(node, name_of_field, None)
            for child in value if isinstance(value, list) else ():
                if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                    queue.append(child)
    return None


def _function_alone(source: str, name: str) -> ast.FunctionDef | None:
    """The function `name` parsed from its own lines, where they can be told without parsing the script
    (parsing a whole script is most of a first launch's estimate): in the script as _parsed dedents it,
    the one line that defines a function of that name, the decorator lines just above it, and the lines
    after it that are more indented, blank or comments, parsed as they are (the same tree as the whole
    script's). None (parse the script) where any of that is in doubt: the name defined twice, the
    definition after an odd number of triple quotes (in a string), a line above it that may continue a
    statement, or lines that do not parse alone as one function of that name."""
    text = textwrap.dedent(source)
    found = list(re.finditer(rf"^([ \t]*)def[ \t]+{re.escape(name)}[ \t]*\(", text, re.MULTILINE))
    if len(found) != 1:
        return None
    match = found[0]
    before = text[: match.start()]
    if (before.count('"""') + before.count("'''")) % 2:
        return None
    indent, lines = match.group(1), text[match.start() :].split("\n")
    end = 1
    while end < len(lines) and (_blank(lines[end]) or _indent(lines[end]) > len(indent)):
        end += 1
    above = before.split("\n")[:-1]
    start = len(above)
    while start and above[start - 1].startswith(indent + "@"):
        start -= 1
    if start and not _blank(above[start - 1]) and _indent(above[start - 1]) >= len(indent):
        return None  # a line above that may continue a statement or a decorator
    snippet = "\n".join([*above[start:], *lines[:end]])
    try:  # an indented definition is parsed inside a block, so that no line (nor string) changes
        tree = ast.parse(f"if 1:\n{snippet}" if indent else snippet)
    except SyntaxError:
        return None
    body = tree.body[0].body if indent and tree.body and isinstance(tree.body[0], ast.If) else tree.body
    alone = len(tree.body) == 1 and len(body) == 1 and isinstance(body[0], ast.FunctionDef) and body[0].name == name
    return body[0] if alone else None


def _blank(line: str) -> bool:
    """Whether a line holds nothing or a comment only (no part of a statement's indentation)."""
    text = line.strip()
    return not text or text.startswith("#")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


@functools.lru_cache(maxsize=64)
def _function_nodes(source: str, name: str | None) -> list[ast.AST]:
    """Every node of the kernel's function (none where there is no such function), found once."""
    function = _function(source, name)
    return _nodes(function) if function is not None else []


@functools.lru_cache(maxsize=16)
def _parsed(source: str) -> ast.Module | None:
    """The script's syntax tree, parsed once for the estimate and the local arrays (never changed here)."""
    try:
        return ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None


def _extents(nodes: list[ast.AST], arrays: set[str]) -> int:
    """Register words of the array extents the kernel reads (`a.size`, `a.shape[k]`)."""
    seen = {(n.value.id, n.attr) for n in nodes if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id in arrays and n.attr in ("size", "shape")}  # fmt: skip
    return WIDE * len(seen)


def _walk(kernel: _Kernel, body: list[ast.stmt], loop_stack: list[int]) -> None:
    for statement in body:
        here = kernel.position
        kernel.position += 1
        if isinstance(statement, (ast.For, ast.While)):
            _uses(kernel, _nodes(statement.iter if isinstance(statement, ast.For) else statement.test), here)
            if isinstance(statement, ast.For):
                _define(kernel, statement.target, here, narrow=False)
            _walk(kernel, statement.body, [*loop_stack, len(kernel.loops)])
            kernel.loops.append((here, kernel.position))
            _walk(kernel, statement.orelse, loop_stack)
            continue
        if isinstance(statement, ast.If):
            _uses(kernel, _nodes(statement.test), here)
            _walk(kernel, statement.body, loop_stack)
            _walk(kernel, statement.orelse, loop_stack)
            continue
        nodes = _nodes(statement)
        _uses(kernel, nodes, here)
        kernel.reads[here] = sum(WIDE - _is_narrow(kernel, n) for n in nodes
                                 if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load))  # fmt: skip
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
            targets = [statement.target]
        for target in targets:
            _define(kernel, target, here, narrow=_is_narrow(kernel, statement.value))
            if isinstance(statement, ast.AugAssign) and isinstance(target, ast.Name) and loop_stack:
                kernel.values[target.id].carried.add(loop_stack[-1])


def _define(kernel: _Kernel, target: ast.expr, here: int, narrow: bool) -> None:
    for node in _nodes(target):
        if isinstance(node, ast.Name):
            value = kernel.values.setdefault(node.id, _Value(narrow=narrow))
            value.first, value.last = min(value.first, here), max(value.last, here)


def _uses(kernel: _Kernel, nodes: list[ast.AST], here: int) -> None:
    for name in nodes:
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load) and name.id in kernel.values:
            kernel.values[name.id].last = max(kernel.values[name.id].last, here)


def _is_narrow(kernel: _Kernel, node: ast.AST | None) -> bool:
    """Whether an expression's value is plainly 32-bit (see the module's docstring)."""
    if node is None:
        return False
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and node.value.id in kernel.narrow_arrays
    if isinstance(node, ast.Call):
        return ast.unparse(node.func) in NARROW_CALLS
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Attribute) and ast.unparse(node.value).split(".")[-1] in NARROW_ATTRIBUTES
    if isinstance(node, ast.Name):
        return node.id in kernel.values and kernel.values[node.id].narrow
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.IfExp)):
        parts = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
        return all(_is_narrow(kernel, c) or isinstance(c, ast.Constant) and isinstance(c.value, int)
                   for c in parts if not isinstance(c, ast.operator))  # fmt: skip
    return False


def _peak(kernel: _Kernel, arrays: set[str], extents: int) -> int:
    """The most register words live at one statement."""
    spans = []
    for name, value in kernel.values.items():
        if value.last < 0:
            continue  # defined, never read: the compiler drops it
        first, last = value.first, value.last
        for start, end in kernel.loops:
            inside = start <= last < end
            if inside and (first < start or any(kernel.loops[i] == (start, end) for i in value.carried)):
                first, last = min(first, start), max(last, end)
        spans.append((first, last, WIDE if name in arrays or not value.narrow else NARROW))
    positions = range(1, kernel.position)
    live = [sum(w for f, lst, w in spans if f <= p <= lst) + kernel.reads.get(p, 0) for p in positions]
    return max(live, default=0) + extents
