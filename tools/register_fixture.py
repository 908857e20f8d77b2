"""Write tests/data/ptxas_registers.json: the registers and local memory ptxas gives each kernel of the
catalog, the examples and the real-kernel scripts, compiled for compute capability 9.0 without a GPU.

Needs numba-cuda with NVVM and a `ptxas` (CUDA toolkit, or the nvidia-cuda-nvcc wheel); run it from the
repository root: `python tools/register_fixture.py --ptxas PATH/TO/ptxas`. Each script runs with its
launches replaced by a compile (device arrays become NumPy arrays), so its own check after the launch
fails and is ignored: only the kernels' argument types are needed."""

from __future__ import annotations

import argparse
import inspect
import json
import re
import runpy
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np

SCRIPTS = ["gpuviz/catalog/lessons/*.py", "examples/*.py", "tests/real_kernels/scripts/nv*.py",
           "tests/real_kernels/scripts/tut*.py", "tests/data/register_kernels.py"]  # fmt: skip


def param_type(numba_type) -> list:
    """A kernel argument's type as the estimate reads it: ["array", dtype, ndim] or ["scalar", dtype]."""
    if hasattr(numba_type, "ndim"):
        return ["array", str(numba_type.dtype), int(numba_type.ndim)]
    return ["scalar", str(numba_type)]


def ptxas_figures(ptx: str, ptxas: str) -> dict:
    """Registers, stack frame and spill bytes of the one entry in `ptx`, as `ptxas -v` reports them."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "k.ptx"
        path.write_text(ptx)
        out = subprocess.run([ptxas, "-arch=sm_90", "-v", str(path), "-o", str(path.with_suffix(".cubin"))],
                             capture_output=True, text=True, check=True).stderr  # fmt: skip
    registers = int(re.findall(r"Used (\d+) registers", out)[-1])
    stack = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores", out)[-1]
    return {"registers": registers, "local_bytes": int(stack[0]), "spill_bytes": int(stack[1])}


class HostArray(np.ndarray):
    """A NumPy array that answers a device array's copies, so a script goes on past its launches."""

    def copy_to_host(self, *args, **kw):
        return np.array(self)

    def copy_to_device(self, other, *args, **kw):
        self[...] = other


def slug_of_lesson(name: str) -> str:
    """A lesson's script named by its slug, which reordering the course does not change."""
    return re.sub(r"^gpuviz/catalog/lessons/\d+-", "gpuviz/catalog/lessons/", name)


def harvest(scripts: list[Path], ptxas: str) -> list[dict]:
    from numba import cuda
    from numba.cuda import dispatcher

    found: list[dict] = []
    seen: set = set()

    def call(self, args, launch_config):
        types = tuple(self.typeof_pyval(a) for a in args)
        # one entry per distinct kernel: the tutorial's kernel, copied into three scripts, would count three times
        key = (inspect.getsource(self.py_func), types)
        if key in seen:
            return
        seen.add(key)
        ptx, _ = cuda.compile_ptx(self.py_func, types, cc=(9, 0))
        code = self.py_func.__code__
        params = code.co_varnames[: code.co_argcount]
        named = {p: param_type(t) for p, t in zip(params, types)}
        found.append(
            {"script": current[0], "kernel": self.py_func.__name__, "params": named} | ptxas_figures(ptx, ptxas)
        )

    dispatcher.CUDADispatcher.call = call
    cuda.to_device = lambda a, *args, **kw: np.array(a).view(HostArray)
    cuda.device_array = lambda shape, dtype=np.float64, *args, **kw: np.zeros(shape, dtype).view(HostArray)
    cuda.device_array_like = lambda a, *args, **kw: np.zeros_like(a).view(HostArray)
    cuda.synchronize = lambda: None
    cuda.get_current_device = lambda: types.SimpleNamespace(MULTIPROCESSOR_COUNT=132, WARP_SIZE=32,
                                                            compute_capability=(9, 0), name="sm_90")  # fmt: skip
    current = [""]
    for script in scripts:
        current[0] = slug_of_lesson(script.as_posix())
        try:
            runpy.run_path(str(script), run_name="__main__")
        except BaseException as error:  # noqa: BLE001 - the script's own check fails after a compile-only launch
            print(f"{script}: stopped at {type(error).__name__}", file=sys.stderr)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("--out", default="tests/data/ptxas_registers.json")
    options = parser.parse_args()
    scripts = sorted({p for pattern in SCRIPTS for p in Path().glob(pattern)})
    version = (
        subprocess.run([options.ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    )
    # in a fixed order (lessons by slug): the even/odd split of the fit must not move when the course is reordered
    kernels = sorted(harvest(scripts, options.ptxas), key=lambda k: (k["script"], k["kernel"]))
    Path(options.out).write_text(json.dumps({"ptxas": version, "arch": "sm_90", "kernels": kernels}, indent=1) + "\n")
    print(f"{len(kernels)} kernels from {len(scripts)} scripts -> {options.out}")


if __name__ == "__main__":
    main()
