"""Find a kernel's own source and syntax tree, so that rewritten code keeps the user's line numbers."""

from __future__ import annotations

import ast
import inspect
import itertools
import linecache
from dataclasses import dataclass

from gpuviz.core.errors import KernelSourceError

_counter = itertools.count()


@dataclass(frozen=True)
class KernelSource:
    """A function's file name, the whole file's text and the function's syntax tree in it."""

    name: str
    filename: str
    text: str
    node: ast.FunctionDef

    @property
    def first_line(self) -> int:
        return min([self.node.lineno] + [d.lineno for d in self.node.decorator_list])

    @property
    def last_line(self) -> int:
        return self.node.end_lineno or self.node.lineno


def register_text(text: str, label: str = "kernel") -> str:
    """Give source text a file name that tracebacks and inspect can read back."""
    filename = f"<gpuviz-{label}-{next(_counter)}>"
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    return filename


def parse_file(text: str, filename: str) -> ast.Module:
    try:
        return ast.parse(text, filename)
    except SyntaxError as exc:
        raise KernelSourceError(
            f"{_short(filename)} line {exc.lineno}: invalid syntax: {exc.msg}", exc.lineno
        ) from None


def source_of(func) -> KernelSource:
    """The KernelSource of a Python function defined in a file or in registered text; a function built
    from another's lines (the kernel `@vectorize` makes) carries its own as `_gpuviz_source`."""
    built = getattr(func, "_gpuviz_source", None)
    if isinstance(built, KernelSource):
        return built
    code = func.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, func.__globals__)
    if not lines:
        try:
            lines = inspect.getsourcelines(func)[0]
        except (OSError, TypeError):
            raise KernelSourceError(
                f"cannot find the source of {func.__name__}; define it in a file or pass its text"
            ) from None
    text = "".join(lines)
    tree = parse_file(text, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == func.__name__:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first == code.co_firstlineno or node.lineno == code.co_firstlineno:
                return KernelSource(func.__name__, filename, text, node)
    raise KernelSourceError(f"cannot find the definition of {func.__name__} in {_short(filename)}")


def _short(filename: str) -> str:
    return filename.rsplit("/", 1)[-1]
