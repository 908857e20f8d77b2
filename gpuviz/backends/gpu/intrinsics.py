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
        # numba's simulator runs a thread's steps a thousand times slower than a GPU: its clock counts
        # microseconds as nanoseconds, so that a thread's records are as close in time as on a GPU and
        # do not each need a time mark (layout.py's guard is a few microseconds for narrow records)
        return lambda: time.perf_counter_ns() // 1000
    return _register("mov.u64 $0, %globaltimer;", 64)


def clock64():
    """The SM's own cycle counter (comparable only between readings on one SM)."""
    if simulated():
        return time.perf_counter_ns
    return _register("mov.u64 $0, %clock64;", 64)


def log_value():
    """A value as the log's value column (the first argument) takes it: a complex column (chosen where
    the kernel logs complex arrays) keeps both parts of a complex value; a real column (float32 or
    float64) keeps a complex value's real part and a bool as 0 or 1. Decided when numba types the
    hook, so every value type compiles whichever column the launch has."""
    if simulated():
        import numpy as np

        def as_logged(column, value):
            if column.dtype.kind == "c":
                return column.dtype.type(value)
            return column.dtype.type(np.real(value))

        return as_logged
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def logged(typingctx, column, value):
        def codegen(context, builder, signature, args):
            kind, raw, target = signature.args[1], args[1], signature.return_type
            if not isinstance(kind, (types.Number, types.Boolean)):  # a row of a device function's array
                return context.get_constant(target, 0)  # argument: its branch never logs (not one element)
            if isinstance(kind, types.Complex) and not isinstance(target, types.Complex):
                raw = context.make_complex(builder, kind, value=raw).real
                kind = kind.underlying_float
            return context.cast(builder, raw, kind, target)

        return column.dtype(column, value), codegen

    return logged


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


def dims():
    """An argument's axes, as a constant when numba compiles: an array's ndim, 0 for anything else (a
    device function's parameter that one caller passes an array and another a tuple)."""
    if simulated():
        return lambda value: getattr(value, "ndim", 0)
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def axes(typingctx, value):
        count = value.ndim if isinstance(value, types.Array) else 0

        def codegen(context, builder, signature, args):
            return context.get_constant(types.intp, count)

        return types.intp(value), codegen

    return axes


def extent():
    """An array's length along a constant axis; 0 for an axis it lacks or a value that is no array, so
    a hook's index arithmetic types for every argument (only an array's is used)."""
    if simulated():
        return lambda value, axis: value.shape[axis] if axis < getattr(value, "ndim", 0) else 0
    from numba import types
    from numba.core import cgutils
    from numba.cuda.extending import intrinsic

    @intrinsic
    def length(typingctx, value, axis):
        if not isinstance(axis, types.IntegerLiteral):
            return None

        def codegen(context, builder, signature, args):
            kind, k = signature.args[0], signature.args[1].literal_value
            if not isinstance(kind, types.Array) or k >= kind.ndim:
                return context.get_constant(types.intp, 0)
            array = context.make_array(kind)(context, builder, value=args[0])
            return cgutils.unpack_tuple(builder, array.shape, kind.ndim)[k]

        return types.intp(value, axis), codegen

    return length


def zero_like():
    """A zero of a value's own type (0 for a number, an empty row for an array): what a load outside its
    array gives instead of the memory it would have touched (hooks.py); typed for every value, since a
    hook's dead branch is typed too."""
    if simulated():
        import numpy as np

        return lambda value: np.zeros_like(value)[()] if hasattr(value, "dtype") else type(value)(0)
    from numba.cuda.extending import intrinsic

    @intrinsic
    def zero(typingctx, value):
        def codegen(context, builder, signature, args):
            return context.get_constant_null(signature.return_type)

        return value(value), codegen

    return zero
