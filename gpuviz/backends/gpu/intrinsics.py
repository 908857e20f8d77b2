"""%smid and %globaltimer for numba kernels, through inline PTX (numba has neither built in)."""

from __future__ import annotations

import time

from gpuviz.backends.gpu.compat import import_numba_cuda


def simulated() -> bool:
    """True under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), used to test this backend's logic."""
    import_numba_cuda()
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def _register(ptx: str, bits: int):
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic

    result = types.uint32 if bits == 32 else types.uint64
    constraint = "=r" if bits == 32 else "=l"

    @intrinsic
    def read_register(typingctx):
        def codegen(context, builder, signature, args):
            asm = ir.InlineAsm(ir.FunctionType(ir.IntType(bits), []), ptx, constraint, side_effect=True)
            return builder.call(asm, [])

        return result(), codegen

    return read_register


def smid():
    if simulated():
        return lambda: 0
    return _register("mov.u32 $0, %smid;", 32)


def globaltimer():
    if simulated():
        return time.perf_counter_ns
    return _register("mov.u64 $0, %globaltimer;", 64)


def clock64():
    """The SM's own cycle counter (comparable only between readings on one SM)."""
    if simulated():
        return time.perf_counter_ns
    return _register("mov.u64 $0, %clock64;", 64)


def real_value():
    """A value as the log's value column takes it: float64, a complex number's real part (as the
    simulator's log keeps it), a bool as 0 or 1. The log's column may be float32: exact wherever
    the backend chose it."""
    if simulated():
        import numpy as np

        return lambda value: float(np.real(value))
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def real(typingctx, value):
        def codegen(context, builder, signature, args):
            kind, raw = signature.args[0], args[0]
            if isinstance(kind, types.Complex):
                raw = context.make_complex(builder, kind, value=raw).real
                kind = kind.underlying_float
            return context.cast(builder, raw, kind, types.float64)

        return types.float64(value), codegen

    return real


def as_element():
    """A value as an array's element type makes it (what a store of it puts there): the store
    hook logs this register, with no load of the array after the store."""
    if simulated():
        return lambda arr, value: arr.dtype.type(value)
    from numba.cuda.extending import intrinsic

    @intrinsic
    def element(typingctx, arr, value):
        def codegen(context, builder, signature, args):
            return context.cast(builder, args[1], signature.args[1], signature.return_type)

        return arr.dtype(arr, value), codegen

    return element
