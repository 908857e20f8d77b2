"""The core knows no Qt and no CUDA library: the CLI starts fast on a machine without either."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent

CHECK = """
import sys
from gpuviz.cli import main
main(["run", {script!r}, "--backend", "sim", "--out", {out!r}])
banned = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "cupy")]
banned += [m for m in sys.modules if m.startswith("numba.cuda")]
print("BANNED", banned)
"""


def test_running_on_the_simulator_imports_no_qt_and_no_cuda(tmp_path):
    code = CHECK.format(script=str(ROOT / "examples" / "cupy_vecadd.py"), out=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "BANNED []" in done.stdout


def test_core_modules_do_not_import_gui_or_gpu_libraries_at_top_level():
    allowed = {"gpu", "app"}  # the GPU backend and the GUI are the only places for these
    core = [p for p in (ROOT / "gpuviz").rglob("*.py") if p.relative_to(ROOT / "gpuviz").parts[0] not in allowed]
    for path in core:
        for line in path.read_text().splitlines():
            stripped = line.split("#")[0].strip()
            if not stripped.startswith(("import ", "from ")) or line.startswith(" "):
                continue
            for banned in ("PySide6", "pyqtgraph", "cupy", "numba.cuda", "from numba import cuda"):
                assert banned not in stripped, f"{path.name}: {stripped}"
