"""The argument types numba-cuda can pass to a kernel; anything else is refused before the launch."""

from __future__ import annotations

import numpy as np

from gpuviz.core.errors import KernelSourceError

_SCALARS = (bool, int, float, complex, np.generic)
ONE_RECORD = "one record"


def refused_argument(value: object) -> str | None:
    """Why numba-cuda cannot type this argument, or None when it can."""
    if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
        dtype = np.dtype(getattr(value, "dtype", np.float64))
        if dtype.hasobject:
            return "an array of Python objects (dtype object)"
        if dtype.kind in "USV" and dtype.names is None:
            return f"an array of {dtype.kind == 'V' and 'raw bytes' or 'strings'} ({dtype})"
        return None
    if isinstance(value, np.void) and value.dtype.names:
        return ONE_RECORD
    if value is None or (isinstance(value, _SCALARS) and not isinstance(value, (np.str_, np.bytes_, np.void))):
        return None  # numba types None too (types.none)
    if isinstance(value, tuple):
        return next((r for r in map(refused_argument, value) if r), None)
    return f"a {type(value).__name__}"


def check_arguments(program, args: tuple) -> None:
    """One line naming the first argument numba-cuda would refuse, at its parameter's line."""
    parameters = program.kernel.source.node.args.args
    for parameter, value in zip(parameters, args):
        why = refused_argument(value)
        if why == ONE_RECORD:  # numba-cuda takes it (and copies it back); the simulator does not
            raise KernelSourceError(
                f"{program.name}, line {parameter.lineno}: argument '{parameter.arg}' is one record; gpuviz "
                f"simulates records in arrays only: pass np.array([{parameter.arg}]) and read {parameter.arg}[0].x",
                parameter.lineno,
            )
        if why:
            name, line = parameter.arg, parameter.lineno
            raise KernelSourceError(
                f"{program.name}, line {line}: argument '{name}' is {why}; numba-cuda kernels take arrays of "
                f"numbers (or records), numbers, booleans and tuples of them",
                line,
            )
