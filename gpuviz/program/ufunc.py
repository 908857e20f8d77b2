"""What `@vectorize([...], target='cuda')` gives back under gpuviz: a ufunc whose call launches one thread
per element through the active session, as numba-cuda's does (numba_cuda/numba/cuda/deviceufunc.py,
UFuncMechanism.call): arguments matched to a signature with the arrays' exact types, scalars made
one-element arrays broadcast to the shape, host arrays copied to the device, `kernel.forall(n)` (the
driver's block size), and the result copied back unless an argument was already on the device."""

from __future__ import annotations

import warnings

import numpy as np

from gpuviz.core.errors import GpuvizError
from gpuviz.instrument.ufunc_kernel import ufunc_kernel
from gpuviz.program.kernel import Kernel

SCALARS = (int, float, complex, np.number)


class CudaUFunc:
    """`ufunc(a, b, out=None, stream=0)` on NumPy or device arrays (and scalars)."""

    def __init__(self, scalar, signatures: list, cuda_module):
        self.py_func = scalar
        self.__name__ = scalar.__name__
        self.types = [parse_signature(s, scalar.__name__) for s in signatures]  # (argument dtypes, result dtype)
        self.kernel = Kernel(ufunc_kernel(scalar, cuda_module))
        self._cuda = cuda_module

    @property
    def nin(self) -> int:
        return len(self.types[0][0])

    def __call__(self, *args, out=None, stream=0, **unknown):
        if unknown:
            warnings.warn(f"unrecognized keywords: {', '.join(unknown)}", stacklevel=2)
        if len(args) != self.nin:
            raise GpuvizError(f"{self.__name__} takes {self.nin} arguments, not {len(args)}")
        values = [a if is_device_array(a) or isinstance(a, SCALARS) else np.asarray(a) for a in args]
        argtypes, restype = self._match(values)
        arrays = [np.array([v], dtype=t) if isinstance(v, SCALARS) else v for v, t in zip(values, argtypes)]
        arrays = broadcast(arrays)
        outshape = arrays[0].shape
        if arrays[0].ndim > 1:  # the kernel is one-dimensional: numba ravels every argument
            arrays = [a.ravel() for a in arrays]
        on_device = any(is_device_array(a) for a in arrays)
        arrays = [a if is_device_array(a) else self._cuda.to_device(a, stream=stream) for a in arrays]
        n = arrays[0].shape[0]
        target = self._output(out, n, restype, stream)
        if n:
            self.kernel.forall(n, stream=stream)(*arrays, target)
        if out is not None and not is_device_array(out):
            target.copy_to_host(out.reshape(n), stream=stream)
            return out.reshape(outshape)
        if out is None and not on_device:
            return target.copy_to_host().reshape(outshape)
        return target.reshape(outshape)

    def reduce(self, arg, stream=0):
        """numba-cuda's `ufunc.reduce` of a 1-D array: calls of the ufunc on halves, in place on the device
        (each call a launch), an odd element folded in last; the result is the first element."""
        if self.nin != 2 or getattr(arg, "ndim", 0) != 1 or arg.shape[0] == 0:
            raise GpuvizError(f"{self.__name__}.reduce takes a non-empty 1-D array, and a ufunc of two arguments")
        if arg.shape[0] == 1:
            return arg[0]
        memory = arg if is_device_array(arg) else self._cuda.to_device(arg, stream=stream)
        return self._reduce(memory, stream).copy_to_host()[0]

    def _reduce(self, memory, stream):
        n = memory.shape[0]
        if n % 2:
            folded = self._reduce(memory[: n - 1], stream)
            return self(folded, memory[n - 1 :], out=folded, stream=stream)
        left, right = memory[: n // 2], memory[n // 2 :]
        self(left, right, out=left, stream=stream)
        return left if n // 2 == 1 else self._reduce(left, stream)

    def _match(self, values: list) -> tuple[tuple, np.dtype]:
        """The signature whose array types equal the arguments' (casting='no', as numba-cuda); scalars
        match their own type first, else any."""
        actual = [None if isinstance(v, SCALARS) else v.dtype for v in values]
        exact = [t for t in self.types if all(np.asarray(v).dtype == f for v, f in zip(values, t[0]))]
        loose = [t for t in self.types if all(a is None or a == f for a, f in zip(actual, t[0]))]
        matches = exact or loose
        if len(matches) != 1:
            given = ", ".join(str(np.asarray(v).dtype) for v in values)
            allowed = "; ".join(f"{r}({', '.join(map(str, a))})" for a, r in self.types)
            what = "no signature takes" if not matches else "more than one signature takes"
            raise GpuvizError(f"{self.__name__}: {what} ({given}); its signatures are {allowed}")
        return matches[0]

    def _output(self, out, n: int, restype: np.dtype, stream):
        if out is None:
            return self._cuda.device_array(n, dtype=restype, stream=stream)
        if out.size != n or out.dtype != restype:
            raise GpuvizError(
                f"{self.__name__}: out= must hold {n} elements of {restype}, not {out.size} of {out.dtype}"
            )
        if is_device_array(out):
            return out.reshape(n) if out.ndim > 1 else out
        return self._cuda.device_array(n, dtype=restype, stream=stream)


def is_device_array(value) -> bool:
    """A numba or CuPy device array, or the simulator's stand-in for one."""
    return bool(getattr(value, "_gpuviz_device_array", False)) or hasattr(value, "__cuda_array_interface__")


def broadcast(arrays: list) -> list:
    """NumPy's broadcasting, by zero strides (a scalar's one element serves every thread)."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise GpuvizError(f"the arguments' shapes {shapes} do not broadcast to one shape") from None
    for a in arrays:
        if a.shape != shape and is_device_array(a) and not isinstance(a, np.ndarray):
            raise GpuvizError(
                f"a device array of shape {a.shape} cannot be broadcast to {shape} here; "
                "pass device arrays of one shape (host arrays and scalars broadcast)"
            )
    return [a if a.shape == shape else np.broadcast_to(a, shape, subok=True) for a in arrays]


def parse_signature(signature, name: str) -> tuple[tuple, np.dtype]:
    """'float32(float32, float32)' (or numba's typed form) as NumPy dtypes: (arguments, result)."""
    try:
        from numba.core import sigutils
        from numba.np.numpy_support import as_dtype

        arguments, result = sigutils.normalize_signature(signature)
        if result is None:
            raise TypeError("no return type")
        return tuple(as_dtype(a) for a in arguments), as_dtype(result)
    except Exception as exc:
        raise GpuvizError(
            f"{name}: the signature {signature!r} is not one vectorize takes ({exc}); "
            "write 'result(argument, ...)' with scalar types, e.g. 'float32(float32, float32)'"
        ) from None


def vectorize_for(cuda_module, other_targets=None, default_target: str = "cuda"):
    """numba's `vectorize` for a script's run: target='cuda' gives a CudaUFunc on `cuda_module` (the
    simulator's stand-in or numba-cuda's own); other targets go to `other_targets` (numba's own)."""

    def vectorize(ftylist_or_function=(), **options):
        target = options.pop("target", default_target)
        if target != "cuda":
            if other_targets is None:
                raise GpuvizError(f"vectorize target {target!r} is not available here; use target='cuda'")
            return other_targets(ftylist_or_function, target=target, **options)
        signatures = [ftylist_or_function] if isinstance(ftylist_or_function, str) else ftylist_or_function
        if callable(signatures) or not signatures:
            raise GpuvizError(
                "give vectorize its signatures for target='cuda', as numba-cuda needs them: "
                "@vectorize(['float32(float32, float32)'], target='cuda')"
            )
        options.pop("identity", None)  # used by ufunc.reduce only
        options.pop("nopython", None)  # numba-cuda warns that it is redundant
        if options:
            raise GpuvizError(
                f"vectorize for target='cuda' takes no option {', '.join(map(repr, options))}; "
                "it takes signatures, target and identity"
            )
        return lambda scalar: CudaUFunc(scalar, list(signatures), cuda_module)

    return vectorize


def guvectorize_for(other_targets=None, default_target: str = "cuda"):
    """numba's `guvectorize`: other targets go to numba's own; target='cuda' is refused in one line."""

    def guvectorize(*args, **options):
        target = options.get("target", default_target)
        if target == "cuda" or other_targets is None:
            raise GpuvizError(
                "guvectorize(target='cuda') is not traced by gpuviz; write the kernel with "
                "@cuda.jit, or use @vectorize for an element-wise function"
            )
        return other_targets(*args, **options)

    return guvectorize
