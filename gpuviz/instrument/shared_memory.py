"""Memory a kernel declares, from its text: static shared arrays per block and local arrays per thread.
What the residency model needs before the launch runs, and what ptxas and the driver refuse."""

from __future__ import annotations

import ast

import numpy as np

from gpuviz.core.dtypes import to_dtype
from gpuviz.core.errors import KernelSourceError
from gpuviz.instrument.rewrite import KernelRewriter, Program

MAX_STATIC_SHARED = 48 * 1024  # bytes of static shared memory a kernel may declare per block (ptxas)
MAX_LOCAL = 512 * 1024  # bytes of local memory per thread (the CUDA limit)


def declarations(program: Program, kind: str) -> list[tuple[int, int]]:
    """(line, bytes) of each `cuda.<kind>.array(shape, dtype)` of the kernel and its device functions
    (kind: "shared" or "local"), evaluated in the function's globals; a declaration that is not a
    constant expression there is left out."""
    found = []
    for function in program.functions:
        rewriter = KernelRewriter(function.source, function.env)
        for node in ast.walk(function.source.node):
            if isinstance(node, ast.Call) and rewriter.path(node.func) == f"{kind}.array":
                size = _bytes(node, function.env)
                if size is not None:
                    found.append((node.lineno, size))
    return found


def shared_bytes(program: Program) -> int:
    """Static shared memory one block declares (worked out once per program)."""
    return program.memo("shared_bytes", lambda: sum(size for _, size in declarations(program, "shared")))


def check_declared_memory(program: Program) -> None:
    """Refuse what ptxas and the driver refuse, naming the user's line (the GPU backend checks before it
    compiles; the simulator checks the same limits as the kernel runs)."""
    total = 0
    for line, size in declarations(program, "shared"):
        total += size
        if total > MAX_STATIC_SHARED:
            raise KernelSourceError(
                f"{program.name}, line {line}: the kernel declares {total:,} bytes of static shared memory per "
                f"block; at most {MAX_STATIC_SHARED:,} bytes (48 KiB) are allowed (ptxas: 'uses too much shared "
                f"data'); use dynamic shared memory, kernel[grid, block, 0, nbytes] with cuda.shared.array(0, dtype)",
                line,
            )
    for line, size in declarations(program, "local"):
        if size > MAX_LOCAL:
            raise KernelSourceError(
                f"{program.name}, line {line}: cuda.local.array of {size:,} bytes per thread; a thread has at most "
                f"{MAX_LOCAL:,} bytes (512 KiB) of local memory, and the GPU refuses the launch",
                line,
            )


def _bytes(node: ast.Call, env: dict) -> int | None:
    given = dict(zip(("shape", "dtype"), node.args)) | {k.arg: k.value for k in node.keywords}
    try:
        shape = eval(compile(ast.Expression(given["shape"]), "<shape>", "eval"), dict(env))  # noqa: S307
        dtype = to_dtype(eval(compile(ast.Expression(given["dtype"]), "<dtype>", "eval"), dict(env)))  # noqa: S307
    except Exception:  # noqa: BLE001 - not a constant: counted as nothing
        return None
    return int(np.prod(shape)) * np.dtype(dtype).itemsize
