"""Translate an Indigo kernel file (.cu) into a numba-cuda script, mechanically: the C is parsed
(cparse.py) and every construct is written as its numba spelling. A kernel outside the dialect is not
guessed at: `translate` raises Untranslatable with the reason, and the manifest lists it.
`python tools/indigo_translate.py OUT_DIR` writes every kernel as a script.

What changes in the writing, and why it keeps the C's meaning:
- `for (init; cond; update) body` becomes init, `while cond:`, body, update (no `continue` is allowed,
  which would skip the update); the loop variable outlives the loop, which no kernel here relies on.
- `/` and `%` of ints become `//` and `%`: C truncates and Python floors, which agree because every
  operand in the suite is an index, a count or a thread number (never negative).
- a pointer argument (`&a[i]`, or a bare array meaning `&a[0]`) becomes the pair (array, index):
  numba has no pointers, and its atomics take an array and an index.
- an index computed with a minus (or from a variable a minus may make negative) is `a[uint32(k)]`: a
  negative index reads before a C array (out of bounds), where numba would wrap it around to the
  array's end; as uint32 it stays out of bounds, and a non-negative index is unchanged.
- `x = a[k]++` (the only post-increment inside an expression) reads a[k] once and writes it once,
  as C does: `x = a[k]` then `a[k] = x + 1`.
- HiRace's instrumentation (the artifact's `indigo_hirace_sources`: `HIRACE START/END` blocks, `__hr_`
  names and the shadow-memory parameters) is stripped first, so both folders translate alike.
"""

from __future__ import annotations

import re

from indigo.cparse import CSyntaxError, parse

FULL_MASK = "0xFFFFFFFF"
BUILTINS = {"threadIdx": "cuda.threadIdx", "blockIdx": "cuda.blockIdx", "blockDim": "cuda.blockDim",
            "gridDim": "cuda.gridDim"}  # fmt: skip
ATOMICS = {"atomicAdd": "add", "atomicSub": "sub", "atomicMax": "max", "atomicMin": "min", "atomicExch": "exch",
           "atomicOr": "or_", "atomicAnd": "and_", "atomicXor": "xor", "atomicCAS": "compare_and_swap"}  # fmt: skip
MASKED = {"__shfl_xor_sync": "shfl_xor_sync", "__shfl_up_sync": "shfl_up_sync", "__shfl_down_sync": "shfl_down_sync",
          "__shfl_sync": "shfl_sync", "__ballot_sync": "ballot_sync", "__any_sync": "any_sync",
          "__all_sync": "all_sync"}  # fmt: skip
PLAIN_CALLS = {"max": "max", "min": "min", "__popc": "cuda.popc", "__syncthreads": "cuda.syncthreads",
               "__syncthreads_or": "cuda.syncthreads_or", "__syncthreads_count": "cuda.syncthreads_count",
               "__syncthreads_and": "cuda.syncthreads_and", "__syncwarp": "cuda.syncwarp",
               "__threadfence": "cuda.threadfence"}  # fmt: skip
INT_PREDICATE = {"__syncthreads_or", "__syncthreads_count", "__syncthreads_and"}  # numba takes an int32 here
PY_OPS = {"&&": "and", "||": "or", "/": "//"}
C_TYPES = {"int": "int32", "data_t": "int32", "unsigned": "uint32", "unsigned int": "uint32"}
HIRACE_BLOCK = re.compile(r"/\*+/\s*/\*+ HIRACE START \*+/\s*/\*+/.*?/\*+/\s*/\*+ HIRACE END \*+/\s*/\*+/", re.S)


class Untranslatable(ValueError):
    """A kernel the translator cannot write faithfully; the message says why."""


def device_code(source: str) -> tuple[str, bool]:
    """(the kernel part of a .cu file, whether HiRace's instrumentation was stripped from it)."""
    typedef = re.search(r"typedef\s+([\w ]+?)\s+data_t\s*;", source)
    if typedef is None or typedef.group(1) != "int":
        raise Untranslatable(f"data_t is {typedef.group(1) if typedef else 'not declared'}; the translator knows int")
    start = source.find('#include "indigo_cuda.h"')
    end = source.find("void serial_code")
    if start < 0 or end < 0:
        raise Untranslatable("no indigo_cuda.h include or no serial_code: not an Indigo kernel file")
    code = source[start + len('#include "indigo_cuda.h"') : end]
    stripped = HIRACE_BLOCK.sub("", code)
    stripped = re.sub(r"\s*__hr_\w+\+\+;", "", stripped)  # HiRace's barrier counters
    stripped = re.sub(r",\s*hr_shadowt\*\s*__hr_\w+", "", stripped)  # its shadow-memory parameters
    stripped = stripped.replace("__hr_", "")
    return stripped, stripped != code


def translate(source: str, header: str = "") -> tuple[str, bool]:
    """(the numba script of an Indigo .cu file's kernels, whether HiRace's instrumentation was stripped)."""
    code, stripped = device_code(source)
    try:
        functions = parse(code)
    except CSyntaxError as exc:
        raise Untranslatable(str(exc)) from None
    pointers = {name: [p for _, pointer, p in params if pointer] for _, _, name, params, _ in functions}
    parts = [f'"""{header}"""\n' if header else "", "from numba import cuda, int32, uint32\n"]
    for qualifier, _, name, params, body in functions:
        parts.append("\n\n" + _Writer(pointers, params, body).function(qualifier, name, params, body))
    return "".join(parts), stripped


class _Writer:
    """Writes one function; `pointers` names each function's pointer parameters (they become pairs)."""

    def __init__(self, pointers: dict[str, list[str]], params: list[tuple], body: tuple):
        self.pointers = pointers
        self.signed = _maybe_negative(body)
        self.arrays = {name for _, pointer, name in params if pointer}
        self.lines: list[str] = []
        self.device = False

    def function(self, qualifier: str, name: str, params: list[tuple], body: tuple) -> str:
        device = qualifier == "__device__"
        names = []
        for _, pointer, param in params:
            names += [param, f"{param}_at"] if pointer and device else [param]
        self.lines.append(f"@cuda.jit{'(device=True)' if device else ''}\ndef {name}({', '.join(names)}):")
        self.device = device
        self.block(body, 1)
        return "\n".join(self.lines) + "\n"

    # ---- statements ----
    def block(self, node: tuple, depth: int) -> None:
        before = len(self.lines)
        for statement in node[1] if node[0] == "block" else [node]:
            self.statement(statement, depth)
        if all(line.lstrip().startswith("#") for line in self.lines[before:]):
            self.lines.append("    " * depth + "pass")

    def statement(self, node: tuple, depth: int) -> None:
        pad, kind = "    " * depth, node[0]
        if kind == "comment":
            self.lines.append(f"{pad}# {node[1]}")
        elif kind == "block":
            self.block(node, depth)
        elif kind == "decl":
            self.declaration(node, pad)
        elif kind == "expr":
            self.lines += [pad + line for line in self.effect(node[1])]
        elif kind == "if":
            self.if_chain(node, depth)
        elif kind == "while":
            self.lines.append(f"{pad}while {self.expr(node[1])}:")
            self.block(node[2], depth + 1)
        elif kind == "for":
            self.for_loop(node, depth)
        elif kind == "break":
            self.lines.append(f"{pad}break")
        elif kind == "continue":
            raise Untranslatable("continue in a loop (its for-update would be skipped in a while loop)")
        elif kind == "return":
            self.lines.append(f"{pad}return" + ("" if node[1] is None else f" {self.expr(node[1])}"))

    def declaration(self, node: tuple, pad: str) -> None:
        _, shared, kind, name, size, init = node
        if shared:
            if size is None or init is not None:
                raise Untranslatable(f"shared {name}: only a fixed-size shared array is translated")
            self.lines.append(f"{pad}{name} = cuda.shared.array({self.expr(size)}, {_numba_type(kind)})")
        elif size is not None:
            raise Untranslatable(f"local array {name}: not in the translated dialect")
        elif init is not None and init[0] == "post":
            self.lines += [pad + line for line in self.post_increment(name, init)]
        else:
            self.lines.append(f"{pad}{name} = {'0' if init is None else self.expr(init)}")

    def if_chain(self, node: tuple, depth: int, word: str = "if") -> None:
        pad = "    " * depth
        self.lines.append(f"{pad}{word} {self.expr(node[1])}:")
        self.block(node[2], depth + 1)
        other = node[3]
        if other is not None and other[0] == "if":
            self.if_chain(other, depth, "elif")
        elif other is not None:
            self.lines.append(f"{pad}else:")
            self.block(other, depth + 1)

    def for_loop(self, node: tuple, depth: int) -> None:
        _, init, cond, update, body = node
        pad = "    " * depth
        if init is not None:
            self.statement(init, depth)
        self.lines.append(f"{pad}while {'True' if cond is None else self.expr(cond)}:")
        self.block(body, depth + 1)
        if update is not None:
            self.lines += ["    " * (depth + 1) + line for line in self.effect(update)]

    def effect(self, node: tuple) -> list[str]:
        """Python lines for an expression used as a statement."""
        if node[0] == "post":
            return [f"{self.expr(node[2])} {'+' if node[1] == '++' else '-'}= 1"]
        if node[0] == "assign":
            _, op, target, value = node
            if value[0] == "post":
                if op != "=" or target[0] != "name":
                    raise Untranslatable("a post-increment inside an assignment other than `x = a[k]++`")
                return self.post_increment(target[1], value)
            operator = "=" if op == "=" else PY_OPS.get(op[:-1], op[:-1]) + "="
            return [f"{self.expr(target)} {operator} {self.expr(value)}"]
        if node[0] == "call":
            return [self.expr(node)]
        raise Untranslatable("an expression statement with no effect")

    def post_increment(self, name: str, node: tuple) -> list[str]:
        place = self.expr(node[2])
        return [f"{name} = {place}", f"{place} = {name} {'+' if node[1] == '++' else '-'} 1"]

    # ---- expressions ----
    def expr(self, node: tuple) -> str:
        kind = node[0]
        if kind == "num":
            return node[1].rstrip("uUlL")
        if kind == "name":
            return node[1]
        if kind == "member":
            if node[1][0] != "name" or node[1][1] not in BUILTINS:
                raise Untranslatable("a struct member other than threadIdx/blockIdx/blockDim/gridDim")
            return f"{BUILTINS[node[1][1]]}.{node[2]}"
        if kind == "index":
            index = self.expr(node[2])
            wrap = _subtracts(node[2], self.signed)
            return f"{self.expr(node[1])}[{f'uint32({index})' if wrap else index}]"
        if kind == "call":
            return self.call(node[1], node[2])
        if kind == "unary":
            if node[1] == "&":
                raise Untranslatable("an address (&) used other than as an atomic's or a device function's argument")
            op = {"!": "not "}.get(node[1], node[1])
            return f"{op}{self.operand(node[2])}"
        if kind == "binary":
            op = PY_OPS.get(node[1], node[1])
            return f"{self.operand(node[2])} {op} {self.operand(node[3])}"
        if kind == "ternary":
            return f"({self.expr(node[2])} if {self.expr(node[1])} else {self.expr(node[3])})"
        if kind == "cast":
            return f"{_numba_type(node[1])}({self.expr(node[2])})"
        raise Untranslatable(f"{'a post-increment' if kind == 'post' else 'an assignment'} inside an expression")

    def operand(self, node: tuple) -> str:
        """An operand of an operator: in parentheses unless it is one term (C's and Python's precedence
        differ, for instance of & against ==, so nothing is left to them)."""
        text = self.expr(node)
        return f"({text})" if node[0] in ("binary", "unary") else text

    def call(self, name: str, args: list[tuple]) -> str:
        if name in ATOMICS:
            array, index = self.place(args[0])
            rest = ", ".join(self.expr(a) for a in args[1:])
            return f"cuda.atomic.{ATOMICS[name]}({array}, {index}, {rest})"
        if name in MASKED:
            mask = FULL_MASK if args[0] == ("unary", "~", ("num", "0")) else self.expr(args[0])
            return f"cuda.{MASKED[name]}({', '.join([mask] + [self.expr(a) for a in args[1:]])})"
        if name in PLAIN_CALLS:
            texts = [self.expr(a) for a in args]
            if name in INT_PREDICATE:
                texts = [f"int32({text})" for text in texts]
            return f"{PLAIN_CALLS[name]}({', '.join(texts)})"
        if name in self.pointers:
            return f"{name}({', '.join(self.argument(a) for a in args)})"
        raise Untranslatable(f"a call of {name}, which the translator does not know")

    def argument(self, node: tuple) -> str:
        if node[0] == "unary" and node[1] == "&" or node[0] == "name" and node[1] in self.arrays:
            return ", ".join(self.place(node))
        return self.expr(node)

    def place(self, node: tuple) -> tuple[str, str]:
        """(array, index) of a pointer expression: &a[i], a kernel's array a (= &a[0]), or a device
        function's pointer parameter p (the pair p, p_at)."""
        if node[0] == "unary" and node[1] == "&" and node[2][0] == "index" and node[2][1][0] == "name":
            return node[2][1][1], self.expr(node[2][2])
        if node[0] == "name" and node[1] in self.arrays:
            return node[1], f"{node[1]}_at" if self.device else "0"
        raise Untranslatable("a pointer that is not &array[index] or an array argument")


def _subtracts(node: tuple, signed: set[str]) -> bool:
    """Whether a value is computed with a minus or from a variable that may be negative."""
    if node[0] in ("binary", "unary") and node[1] == "-" or node[0] == "name" and node[1] in signed:
        return True
    return any(_subtracts(part, signed) for part in node[1:] if isinstance(part, tuple))


def _maybe_negative(body: tuple) -> set[str]:
    """Variables that some assignment may make negative (a minus, `-=`, or another such variable)."""
    assignments = []  # (name, value, subtracting operator)

    def visit(node) -> None:
        if not isinstance(node, tuple):
            for item in node if isinstance(node, list) else []:
                visit(item)
            return
        if node[0] == "decl" and node[5] is not None:
            assignments.append((node[3], node[5], False))
        elif node[0] == "assign" and node[2][0] == "name":
            assignments.append((node[2][1], node[3], node[1] == "-="))
        elif node[0] == "post" and node[2][0] == "name":
            assignments.append((node[2][1], ("num", "1"), node[1] == "--"))
        for part in node[1:]:
            visit(part)

    visit(body)
    signed: set[str] = set()
    while True:
        more = {name for name, value, minus in assignments if minus or _subtracts(value, signed)}
        if more <= signed:
            return signed
        signed |= more


def _numba_type(kind: str) -> str:
    if kind not in C_TYPES:
        raise Untranslatable(f"type {kind}: the translator knows {', '.join(C_TYPES)}")
    return C_TYPES[kind]
