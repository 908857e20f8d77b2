"""Where in a kernel a check looks: the lines a check's place names in a script's source.

A place is written three ways (the first argument of `sectors`, `lanes` and `conflicts`):
- `"C[row, col] = acc"`: source text in quotes, the lines of the script's kernels whose code contains it
  (spaces do not count, comments are not code);
- `store-C`: a label, the lines that end in a comment `# check: store-C` (several labels: `# check: a, b`);
  or the name of a kernel or device function, every line of it (`sectors(copy_2d, a)`: all of the kernel's
  requests of `a`, however its lines are written: what judges a fix of how a kernel accesses an array);
- `17`: a line number, which a fix moves when it adds a line: allowed in `## Checks` (the lesson's own
  script) and refused in `## Fix checks`.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

LABEL = re.compile(r"#\s*check:\s*(?P<labels>[\w-]+(?:\s*,\s*[\w-]+)*)")
LABEL_WORD = re.compile(r"^[A-Za-z_][\w-]*$")


@dataclass(frozen=True)
class Place:
    kind: str  # "line", "text" or "label"
    value: str

    def __str__(self) -> str:
        return {"line": f"line {self.value}", "text": f'"{self.value}"', "label": self.value}[self.kind]

    def matches_nothing(self, kernels: str) -> str:
        """Why no line of `kernels` ("the kernels", "the script's kernels") is this place, in words."""
        if self.kind == "text":
            return f'no line of {kernels} contains "{self.value}"'
        return f"none of {kernels} is named {self.value}, and no line of them is labelled `# check: {self.value}`"


def place_of(argument: str) -> Place | None:
    """The place an argument names, or None when it is none of the three forms."""
    text = argument.strip()
    if text.isdigit():
        return Place("line", text)
    if len(text) >= 3 and text[0] == text[-1] and text[0] in "\"'":
        return Place("text", text[1:-1])
    if LABEL_WORD.match(text):
        return Place("label", text)
    return None


def lines_of(place: Place, source: str) -> list[int]:
    """The lines of `source` the place names (text and labels: within the kernels and device functions)."""
    if place.kind == "line":
        return [int(place.value)]
    code, comments = _code_and_comments(source)
    functions = _kernel_functions(source)
    kernel_lines = set().union(*functions.values()) if functions else set(code)
    if place.kind == "label":
        labelled = {n for n in kernel_lines if place.value in _labels(comments.get(n, ""))}
        return sorted(labelled | functions.get(place.value, set()))
    wanted = _squeezed(place.value)
    return sorted(n for n in kernel_lines if wanted and wanted in _squeezed(code.get(n, "")))


def _labels(comment: str) -> set[str]:
    match = LABEL.search(comment)
    return {word.strip() for word in match.group("labels").split(",")} if match else set()


def _squeezed(text: str) -> str:
    return "".join(text.split())


def _code_and_comments(source: str) -> tuple[dict[int, str], dict[int, str]]:
    """Each line's code (comments taken out) and its comment, by line number."""
    lines = source.splitlines()
    code = dict(enumerate(lines, 1))
    comments: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                row, column = token.start
                comments[row] = token.string
                code[row] = lines[row - 1][:column]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a script that does not parse: its lines as they are
    return code, comments


def _kernel_functions(source: str) -> dict[str, set[int]]:
    """The lines of each function decorated with a jit (kernels and device functions), by name."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    functions: dict[str, set[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            functions.setdefault(node.name, set()).update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return functions
