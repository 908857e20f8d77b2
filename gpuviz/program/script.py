"""Run a user's numba-cuda script unmodified, with every kernel launch going through a gpuviz session."""

from __future__ import annotations

import runpy
import sys
import traceback
import types
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np

from gpuviz.core.errors import GpuvizError, KernelSourceError, LaunchError
from gpuviz.program.launcher import Launcher, activated

DETAIL_FRAMES = 40  # frames of a failing script's traceback kept for --debug


class ScriptError(GpuvizError):
    """The script itself failed (an assert, an exception of its own)."""

    def __init__(self, message: str, details: str, line: int | None = None, exit_code: int | None = None):
        super().__init__(message)
        self.details = details
        self.line = line  # the script's own line, for the editor to mark
        self.exit_code = exit_code  # sys.exit(N): the status the script chose (the command line exits with it)


def check_script(path: str | Path) -> tuple[Path, str]:
    """Read a script and check its syntax, with one-line messages for the usual mistakes."""
    path = Path(path)
    if path.is_dir():
        raise GpuvizError(f"{path} is a folder; give a Python script in it")
    if not path.is_file():
        raise GpuvizError(f"no script at {path}")
    if path.suffix.lower() == ".npz":
        raise GpuvizError(f"{path.name} is a trace, not a script: read it with `gpuviz info {path}`, or show it "
                          f"with `gpuviz open {path}`")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark, as some editors save, is no error
    except (OSError, UnicodeDecodeError) as exc:
        raise GpuvizError(f"cannot read {path}: {exc}") from None
    try:
        compile(text, str(path), "exec")
    except SyntaxError as exc:
        raise KernelSourceError(f"{path.name} line {exc.lineno}: invalid syntax: {exc.msg}", exc.lineno) from None
    return path, text


def run_script(path: str | Path, session: Launcher, argv: list[str] | None = None) -> None:
    """Execute the script as __main__; its launches are traced by `session`."""
    path, _ = check_script(path)
    old_argv, old_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [str(path), *(argv or [])]
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        with activated(session), shims_for(session.backend.name, lambda: session.timeline):
            runpy.run_path(str(path), run_name="__main__")
        session.finish()
    except LaunchError as exc:
        raise _at_launch_line(exc, path) from None
    except GpuvizError:
        raise
    except SystemExit as exc:  # the script ended itself: its launches are whole
        session.finish()
        if exc.code not in (None, 0):  # sys.exit(main()) with success is a finished script
            raise _script_exit(exc, path) from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise _script_failure(exc, path) from None
    finally:
        sys.argv = old_argv
        if sys.path and sys.path[0] == str(path.parent.resolve()) and sys.path[0] != old_path0:
            sys.path.pop(0)


def _at_launch_line(exc: LaunchError, path: Path) -> LaunchError:
    """A launch the device refuses, named by the script's line that launched it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    return LaunchError(f"{path.name} line {frames[-1].lineno}: {exc}") if frames else exc


def _script_failure(exc: BaseException, path: Path) -> ScriptError:
    line = _last_line_in(exc.__traceback__, str(path))
    where = f" at line {line}" if line else ""
    text = _shim_import(exc) or str(exc)
    message = f"{path.name} raised {type(exc).__name__}{where}" + (f": {text}" if text else "")
    # Endless recursion leaves a million frames: formatting them all takes minutes, the last few say enough.
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-DETAIL_FRAMES))
    return ScriptError(message, details, line)


def _shim_import(exc: BaseException) -> str | None:
    """`from numba.cuda import libdevice` on the simulator: the words of what is missing, not the stand-in's path."""
    name = (exc.name or "") if isinstance(exc, ImportError) else ""
    if name.startswith("numba.cuda."):  # `import numba.cuda.libdevice`: a submodule the stand-in does not have
        return _shim_words(name.removeprefix("numba.cuda."))
    if name.startswith("gpuviz.program.shims.cuda"):
        return _shim_words(str(exc).split("'")[1] if str(exc).count("'") >= 2 else "that name")
    return None


def _shim_words(missing: str) -> str:
    return (f"numba.cuda.{missing} is not available in gpuviz's simulator; run the script with --backend gpu "
            "on a machine with an NVIDIA GPU (math's functions, cuda.fma and cuda.cbrt do run here)")


def _script_exit(exc: SystemExit, path: Path) -> ScriptError:
    """sys.exit(N) or sys.exit("why"): the script ended itself, not with an error of its own."""
    line = _last_line_in(exc.__traceback__, str(path))
    where = f" at line {line}" if line else ""
    if isinstance(exc.code, int):
        return ScriptError(f"{path.name} exited with status {exc.code}{where}", "", line, exit_code=exc.code)
    return ScriptError(f"{path.name} exited{where}: {exc.code}", "", line)


def _last_line_in(tb, filename: str) -> int | None:
    """The line of the innermost frame in `filename`, without formatting the whole traceback."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


@contextmanager
def shims_for(backend_name: str, timeline=None):
    """Route the script's kernels through gpuviz while it runs: on the simulator `numba.cuda` and
    `cupy` are stand-ins; on the GPU, `numba.cuda.jit` is gpuviz's for the time of the run, and with
    `timeline` (the session's, when asked) the script's own copies, streams and events are timed onto it."""
    if backend_name != "sim":
        from gpuviz.backends import measured_host_calls, real_numba_cuda

        measured = measured_host_calls(timeline) if timeline is not None else nullcontext()
        with _gpuviz_jit_on_real_cuda(), _gpuviz_vectorize(real_numba_cuda()[0], simulated=False), measured:
            yield
        return
    from gpuviz.program.shims import cuda as cuda_shim
    from gpuviz.program.shims import cupy as cupy_shim

    with _gpuviz_vectorize(cuda_shim, simulated=True), _simulator_modules(cuda_shim, cupy_shim):
        yield


@contextmanager
def _simulator_modules(cuda_shim, cupy_shim):
    """numba.cuda and cupy as the simulator's stand-ins while the script runs."""
    replaced = {"numba.cuda": cuda_shim, "numba.cuda.random": cuda_shim.random, "numba.cuda.types": cuda_shim.types,
                "cupy": cupy_shim, "cupy.cuda": cupy_shim.cuda, **_linked_library_shims()}  # fmt: skip
    numba = _numba_module()
    if "numba" not in sys.modules or sys.modules["numba"] is not numba:
        replaced["numba"] = numba
    saved = {name: sys.modules.get(name) for name in replaced}
    sys.modules.update(replaced)
    # `import a.b.c as x` takes a.b from the attribute of a when it has one (`numba.cuda`, or `cuda.cccl`
    # once the real CCCL was imported in this process): parents get the stand-ins as attributes too
    parents = _parent_attributes(replaced)
    for name, (parent, child, _) in parents.items():
        setattr(parent, child, replaced[name])
    # numba-cuda's finder sends `numba.cuda.<sub>` to numba_cuda's folder, and with the stand-in's folder it asks
    # itself again without end (`import numba.cuda.libdevice`: RecursionError); the stand-in needs no redirecting
    redirectors = [finder for finder in sys.meta_path if type(finder).__name__ == "NumbaCudaFinder"]
    sys.meta_path[:] = [finder for finder in sys.meta_path if finder not in redirectors]
    try:
        yield
    finally:
        sys.meta_path[:0] = redirectors
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        for parent, child, before in reversed(parents.values()):
            if before is _MISSING:
                parent.__dict__.pop(child, None)
            else:
                setattr(parent, child, before)


_MISSING = object()


def _parent_attributes(replaced: dict[str, types.ModuleType]) -> dict[str, tuple[types.ModuleType, str, object]]:
    """Stand-in's name -> (its parent module, the attribute, the attribute's value now) for each stand-in
    whose parent is loaded, so that the attribute can be put back afterwards."""
    kept = {}
    for name in replaced:
        parent_name, _, child = name.rpartition(".")
        parent = sys.modules.get(parent_name) if parent_name else None
        if parent is not None:
            kept[name] = (parent, child, parent.__dict__.get(child, _MISSING))
    return kept


def _linked_library_shims() -> dict[str, types.ModuleType]:
    """Stand-ins for the libraries whose device functions kernels link (nvmath-python's device matmul,
    CCCL's block primitives): on the simulator their calls run as gpuviz's models, whether or not the
    real packages are installed. The `cuda` namespace package above CCCL is kept when it is there."""
    from gpuviz.program.shims import cccl_cooperative, nvmath_device

    nvmath = types.ModuleType("nvmath", "gpuviz's stand-in: only nvmath.device's matmul is modelled")
    nvmath.__path__ = []
    nvmath.device = nvmath_device
    cccl = types.ModuleType("cuda.cccl", "gpuviz's stand-in: only the cooperative block primitives are modelled")
    cooperative = types.ModuleType("cuda.cccl.cooperative")
    cccl.__path__ = cooperative.__path__ = []
    cccl.cooperative, cooperative.experimental = cooperative, cccl_cooperative
    shims = {"nvmath": nvmath, "nvmath.device": nvmath_device, "cuda.cccl": cccl,
             "cuda.cccl.cooperative": cooperative, "cuda.cccl.cooperative.experimental": cccl_cooperative}  # fmt: skip
    try:
        import cuda  # noqa: F401  (the namespace package of cuda-bindings and cuda-core, where installed)
    except ImportError:
        namespace = types.ModuleType("cuda")
        namespace.__path__ = []
        shims["cuda"] = namespace
    return shims


@contextmanager
def _gpuviz_jit_on_real_cuda():
    from gpuviz.backends import real_numba_cuda
    from gpuviz.program.kernel import jit

    cuda, numba_jit = real_numba_cuda()
    real = numba_jit()

    def jit_for_scripts(func_or_signature=None, device: bool = False, **options):
        """gpuviz's jit for the script's kernels; numba's own (cuda.reduce and the functions it wraps)
        stay numba's, untraced: what calls jit from inside numba gets numba's jit."""
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("numba.") or caller.startswith("numba_cuda."):
            return (
                real(func_or_signature, device=device, **options)
                if func_or_signature is not None
                else real(device=device, **options)
            )
        return jit(func_or_signature, device=device, **options)

    cuda.jit = jit_for_scripts
    try:
        yield
    finally:
        cuda.jit = numba_jit()


@contextmanager
def _gpuviz_vectorize(cuda_module, simulated: bool):
    """`numba.vectorize(..., target='cuda')` (and numba.cuda's) as gpuviz's while the script runs: its
    ufunc launches through the session like a kernel. Other targets stay numba's. On the simulator
    `guvectorize(target='cuda')` is refused in one line; on a GPU it stays numba's own, untraced."""
    from gpuviz.program.ufunc import guvectorize_for, vectorize_for

    numba = _numba_module()
    patches = [(numba, "vectorize", vectorize_for(cuda_module, getattr(numba, "vectorize", None), "cpu")),
               (cuda_module, "vectorize", vectorize_for(cuda_module))]  # fmt: skip
    if simulated:
        patches += [(numba, "guvectorize", guvectorize_for(getattr(numba, "guvectorize", None), "cpu")),
                    (cuda_module, "guvectorize", guvectorize_for())]  # fmt: skip
    saved = [(owner, name, owner.__dict__.get(name, _MISSING)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, before in reversed(saved):
            if before is _MISSING:
                owner.__dict__.pop(name, None)
            else:
                setattr(owner, name, before)


def _numba_module() -> types.ModuleType:
    try:
        import numba

        return numba
    except ImportError:  # numba's CPU part is missing: give scripts its types from NumPy
        stub = types.ModuleType("numba")
        names = "float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool_"
        for name in names.split():
            setattr(stub, name, getattr(np, name))
        stub.njit = stub.jit = lambda *a, **k: a[0] if a and callable(a[0]) else (lambda f: f)
        return stub
