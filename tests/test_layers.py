"""The layers hold: import-linter's contracts (pyproject.toml), no numba.cuda outside the GPU backend,
and running on the simulator loads neither Qt nor a CUDA library."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "gpuviz"
GPU_BACKEND = PACKAGE / "backends" / "gpu"


def lint_imports(config: Path) -> bool:
    """import-linter through its Python API: no command on PATH to go missing, no cache to go stale.
    A missing import-linter fails here (the test extra installs it): a gate that skips is no gate."""
    from importlinter.api import use_cases

    return use_cases.lint_imports(config_filename=str(config), cache_dir=None, no_logo=True)


def test_import_linter_contracts_are_kept(capsys):
    kept = lint_imports(ROOT / "pyproject.toml")
    report = capsys.readouterr().out
    assert kept, report
    contracts = Path(ROOT / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")
    assert "BROKEN" not in report and report.count("KEPT") == contracts == 6


BROKEN_CONTRACT = """
[tool.importlinter]
root_package = "gpuviz"

[[tool.importlinter.contracts]]
name = "The core imports nothing from the backends (broken on purpose)"
type = "forbidden"
source_modules = ["gpuviz.backends"]
forbidden_modules = ["gpuviz.core"]
"""


def test_a_broken_contract_fails_the_check(tmp_path, capsys):
    config = tmp_path / "broken.toml"
    config.write_text(BROKEN_CONTRACT)
    assert not lint_imports(config)
    assert "BROKEN" in capsys.readouterr().out


def cuda_imports(path: Path) -> list[str]:
    """Every import of numba.cuda in a file, at any depth (inside functions too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[:2] == ["numba", "cuda"]]
        elif isinstance(node, ast.ImportFrom) and node.module:
            from_numba = node.module == "numba" and any(a.name == "cuda" for a in node.names)
            if from_numba or node.module.split(".")[:2] == ["numba", "cuda"]:
                found.append(f"from {node.module} import ...")
    return found


def test_cuda_imports_finds_nested_imports(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    if True:\n        from numba import cuda\n    import numba.cuda.random\n")
    assert len(cuda_imports(sample)) == 2


def test_only_the_gpu_backend_imports_numba_cuda():
    # The catalog's scripts are users' programs: they import numba.cuda, as the tutorials do.
    checked = [p for p in PACKAGE.rglob("*.py") if GPU_BACKEND not in p.parents and "catalog" not in p.parts[-3:-1]]
    offenders = {str(p.relative_to(ROOT)): cuda_imports(p) for p in checked}
    assert {k: v for k, v in offenders.items() if v} == {}


CHECK = """
import sys
from gpuviz.catalog import EXAMPLES
from gpuviz.cli import main
main(["run", str(EXAMPLES / "cupy_vecadd.py"), "--backend", "sim", "--out", {out!r}])
banned = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "cupy")]
banned += [m for m in sys.modules if m.startswith("numba.cuda")]
print("BANNED", banned)
"""


def test_running_on_the_simulator_imports_no_qt_and_no_cuda(tmp_path):
    code = CHECK.format(out=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "BANNED []" in done.stdout


@pytest.mark.slow
def test_gpu_tests_collect_on_a_machine_without_qt(tmp_path):
    """The GPU machine has no PySide6 (nor the app's and the test extras' other libraries): `pytest -m gpu`
    must still collect there (the tests that need them skip)."""
    for blocked in ("PySide6", "pyqtgraph", "psygnal", "hypothesis", "imageio", "nbclient"):
        (tmp_path / blocked).mkdir()
        (tmp_path / blocked / "__init__.py").write_text(f"raise ModuleNotFoundError('no {blocked} on this machine')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    plugins = ["-p", "no:pytest-qt", "-p", "no:hypothesispytest", "-p", "no:cacheprovider"]  # absent there too
    command = [sys.executable, "-m", "pytest", "-m", "gpu", "--collect-only", "-q", *plugins, str(ROOT / "tests")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "error" not in done.stdout.lower().split("collected")[-1]
    assert "tests/test_gpu.py::" in done.stdout


def test_no_import_cycle_in_the_package():
    """No module of gpuviz imports itself through others: lazy imports (inside functions) and imports
    under `if TYPE_CHECKING:` count too (a loop hidden in either is still a loop a reader must untangle)."""
    import grimp  # import-linter's graph library: installed with it, so never a skip

    graph = grimp.build_graph("gpuviz", cache_dir=None)
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                cycles.append(" -> ".join((module, *back)))
    assert not cycles, "\n".join(cycles[:10])


LAUNCH_WITH_THE_PROGRAM_LAYER_ALONE = """
import numpy as np
import gpuviz.program.shims.cuda as cuda

@cuda.jit
def double(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2

x = np.arange(40.0)
double[2, 32](x)
print(x[:3], x[-1])
"""


def test_a_launch_runs_after_importing_the_program_layer_alone(tmp_path):
    """The default launcher is registered by the package's entry point, not by importing the run layer."""
    script = tmp_path / "double.py"
    script.write_text(LAUNCH_WITH_THE_PROGRAM_LAYER_ALONE)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[0.", "2.", "4.]", "78.0"]


def test_every_registered_backend_keeps_the_backend_contract():
    from gpuviz import backends
    from gpuviz.backends.protocol import Backend

    for name in backends.BACKENDS:
        backend = backends.new_backend(name)
        assert isinstance(backend, Backend), name
        assert backend.name == name


def test_the_program_layer_never_asks_what_a_backend_has():
    """`program/kernel.py` used hasattr to tell the backends apart; the Backend contract says what each has."""
    source = (PACKAGE / "program" / "kernel.py").read_text()
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and getattr(node.func, "id", "") == "hasattr"]  # fmt: skip
    assert all("backend" not in ast.unparse(call) for call in calls)


def test_the_app_opens_without_numba():
    # the compiled analyses import numba where they are first used (in the worker), not with the window
    code = "import sys\nimport gpuviz.app.window.main_window\nprint('NUMBA', 'numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "NUMBA False" in done.stdout
