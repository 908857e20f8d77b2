"""The GPU hooks type for the device, checked without a GPU: numba types and lowers the instrumented
kernel for compute capability 9.0; only the last step (NVVM, from a CUDA toolkit) may be missing.
numba's CUDA simulator (tests/test_gpu.py's logic run) runs other hook code than the device does."""

import os
import types

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    pytest.skip("needs numba-cuda's compiler, not its simulator", allow_module_level=True)

KERNELS = {
    "atomics and barriers": ("def k(a, b, c):\n    i = cuda.grid(1)\n    if i < c.size:\n        c[i] = a[i] + b[i]\n"
                             "        cuda.atomic.add(c, 0, 1.0)\n        cuda.syncthreads()\n", 1),
    "shared and 2-D": ("def k(a, b, c):\n    s = cuda.shared.array((4, 8), float32)\n    i, j = cuda.grid(2)\n"
                       "    s[i % 4, j % 8] = a[i, j]\n    cuda.syncthreads()\n    c[i, j] = s[0, 0] + b[i, j]\n", 2),
    "device function, 3-D": ("@cuda.jit(device=True)\ndef put(x, i, j, k, v):\n    x[i, j, k] = v\n"
                                  "def k(a, b, c):\n    i, j, l = cuda.grid(3)\n    put(c, i, j, l, a[i, j, l])\n"
                                  "    cuda.atomic.max(b, (0, 0, 0), c[i, j, l])\n", 3),
    "a device function indexing a tuple": ("@cuda.jit(device=True)\ndef put(x, shape, v):\n"
                                           "    x[v % shape[0], v % shape[1]] = v\n"
                                           "def k(a, b, c):\n    i, j = cuda.grid(2)\n    put(c, (4, 4), i + j)\n", 2),
    "complex values": ("def k(a, b, c):\n    i = cuda.grid(1)\n    c[i] = a[i] * b[i]\n    a[i] = c[i].real\n"
                       "    b[i] = 1j\n", 1, np.complex64),
    "bit intrinsics of a uint32": ("def k(a, b, c):\n    i = cuda.grid(1)\n"
                                   "    c[i] = cuda.clz(a[i]) + cuda.brev(b[i])\n", 1, np.uint32),
}  # fmt: skip


class _Device:
    compute_capability = (9, 0)


def _not_a_compile_error(exc: Exception) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return not names & {"TypingError", "LoweringError", "NumbaError", "UnsupportedError"}


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("level", ["threads", "accesses"])
def test_instrumented_kernels_type_for_the_device(name, level, monkeypatch, tmp_path):
    monkeypatch.setenv("GPUVIZ_CACHE_DIR", str(tmp_path))
    import numba
    import numba.cuda.dispatcher as dispatcher
    from numba import cuda

    from gpuviz.backends.gpu import backend
    from gpuviz.backends.gpu.log import COUNTER_WORDS

    monkeypatch.setattr(dispatcher, "get_current_device", lambda: _Device())  # the cc device functions compile for
    body, dims, *dtype = KERNELS[name]
    dtype = dtype[0] if dtype else np.float32
    path = tmp_path / "kernel.py"
    path.write_text("from numba import cuda, float32\n" + body)
    module = types.ModuleType("kernel")
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    compiled = backend._compile(module.k, level, {"a": dims, "b": dims, "c": dims})
    arrays = [np.zeros((4,) * dims, dtype)] * 3
    value = np.complex128 if np.dtype(dtype).kind == "c" else np.float32  # as the backend picks the log's column
    log = [np.zeros(1, d) for d in (compiled.layout.tag_dtype, np.uint32, value, np.uint16)]
    pool = [np.zeros(64, d) for d in (np.uint32, np.uint16, np.uint32, np.uint32, value)]
    buffers = [np.zeros(1, np.uint64), np.zeros(1, np.uint32), np.zeros(1, np.uint64), np.zeros(1, np.uint64)]
    if level == "accesses":
        buffers += [*log, 1, *pool, np.zeros(COUNTER_WORDS, np.int64), 64, -1]
    signature = tuple(numba.typeof(value) for value in [*arrays, *buffers])
    try:
        cuda.compile_ptx(compiled.kernel.py_func, signature, cc=(9, 0))
    except Exception as exc:  # no CUDA toolkit here: typing and lowering passed if the failure is elsewhere
        assert _not_a_compile_error(exc), str(exc)[-2000:]
