"""The pytest plugin (gpuviz_pytest) on the example course repository in docs/course-repo: its checks pass
as given, fail with the picture's path on a student's race or out-of-bounds access, and the plugin imports
nothing heavy where it is only loaded."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
COURSE = ROOT / "docs" / "course-repo"


def pytest_in(repo: Path, *flags: str) -> subprocess.CompletedProcess:
    """pytest in the course repository, with this gpuviz and its plugin (and no other plugin auto-loaded)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "QT_QPA_PLATFORM": "offscreen"}  # fmt: skip
    command = [sys.executable, "-m", "pytest", "-p", "gpuviz_pytest", "-p", "no:cacheprovider", "-q", *flags]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def course(tmp_path):
    return Path(shutil.copytree(COURSE, tmp_path / "course"))


def test_the_example_course_passes_with_and_without_scripts(course):
    plain = pytest_in(course)
    assert plain.returncode == 0 and "2 passed" in plain.stdout, plain.stdout + plain.stderr
    scripts = pytest_in(course, "--gpuviz")
    assert scripts.returncode == 0 and "4 passed" in scripts.stdout, scripts.stdout + scripts.stderr
    assert not (course / "gpuviz-failures").exists()


def test_a_students_race_and_out_of_bounds_fail_with_their_pictures(course):
    vector_add = course / "assignments" / "vector_add" / "vector_add.py"
    vector_add.write_text(vector_add.read_text().replace("    if i < out.size:\n        out", "    out"))
    block_sum = course / "assignments" / "block_sum" / "block_sum.py"
    block_sum.write_text(block_sum.read_text().replace("        cuda.syncthreads()\n        step //= 2",
                                                       "        step //= 2"))  # fmt: skip
    done = pytest_in(course, "--gpuviz")
    assert done.returncode == 1 and "4 failed" in done.stdout, done.stdout
    assert "out-of-bounds read" in done.stdout and "races: 124 locations in 1 array" in done.stdout
    pictures = re.findall(r"picture: (\S+\.png)", done.stdout)
    assert len(set(pictures)) == 4 and all(Path(p).is_file() and Path(p).parent.name == "gpuviz-failures"
                                           for p in pictures)  # fmt: skip
    assert "tests/test_assignments.py:" in done.stdout  # the failure points at the test's own line


def test_uncoalesced_access_fails_the_sectors_check(course):
    tests = course / "tests" / "test_assignments.py"
    strided = """

def test_strided_copy(gpuviz_check):
    from numba import cuda

    @cuda.jit
    def copy(a, out):
        i = cuda.grid(1)
        out[i] = a[i * 8 % a.size]

    a = np.arange(256, dtype=np.float32)
    gpuviz_check.launch(copy, 1, 256, a, np.zeros_like(a), sectors_per_request={"a": 4})
"""
    tests.write_text(tests.read_text() + strided)
    done = pytest_in(course, "-k", "strided")
    assert done.returncode == 1, done.stdout
    assert re.search(r"a: [\d.]+ sectors per request, expected at most 4 \(ideal 4\)", done.stdout), done.stdout


def test_gpuviz_without_scripts_is_one_line(tmp_path):
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    done = pytest_in(tmp_path, "--gpuviz")
    assert done.returncode != 0
    assert "--gpuviz runs the scripts named by gpuviz_scripts: set it in the pytest configuration" in done.stderr


def test_the_plugin_loads_no_gpuviz_and_no_numpy():
    code = "import sys, gpuviz_pytest; print(sorted(m for m in sys.modules if m.split('.')[0] in " \
           "('gpuviz', 'numpy', 'numba', 'PySide6')))"  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.strip() == "[]"


def test_the_plugin_is_registered_for_pytest_and_packaged():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"gpuviz": "gpuviz_pytest"}
    from setuptools import find_packages

    found = find_packages(str(ROOT), include=project["tool"]["setuptools"]["packages"]["find"]["include"])
    assert "gpuviz_pytest" in found
