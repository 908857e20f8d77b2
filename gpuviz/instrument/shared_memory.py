"""Static shared memory a kernel declares: what the residency model needs before the launch runs."""

from __future__ import annotations

import ast

import numpy as np

from gpuviz.core.dtypes import to_dtype
from gpuviz.instrument.rewrite import KernelRewriter, Program


def shared_bytes(program: Program) -> int:
    """Static shared memory one block declares (the residency model needs it before the launch runs):
    each `cuda.shared.array(shape, dtype)` of the kernel and its device functions, evaluated in the
    function's globals; a declaration that is not a constant expression counts as nothing."""
    total = 0
    for function in program.functions:
        rewriter = KernelRewriter(function.source, function.env)
        for node in ast.walk(function.source.node):
            if not (isinstance(node, ast.Call) and rewriter.path(node.func) == "shared.array"):
                continue
            given = dict(zip(("shape", "dtype"), node.args)) | {k.arg: k.value for k in node.keywords}
            try:
                shape = eval(compile(ast.Expression(given["shape"]), "<shape>", "eval"), dict(function.env))  # noqa: S307
                dtype = to_dtype(eval(compile(ast.Expression(given["dtype"]), "<dtype>", "eval"), dict(function.env)))  # noqa: S307
            except Exception:  # noqa: BLE001, S112 - not a constant: counted as nothing
                continue
            total += int(np.prod(shape)) * np.dtype(dtype).itemsize
    return total
