"""A normal (non-editable) install has the whole catalog: the wheel carries the lessons and examples."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
CATALOG = ROOT / "gpuviz" / "catalog"

CHECK = """
import sys
sys.path.insert(0, {site!r})
import gpuviz
assert gpuviz.__file__.startswith({site!r}), gpuviz.__file__
from gpuviz.cli import main
main(["list"])
sys.exit(main(["demo", "one-thread", "--backend", "sim", "--out", "traces"]))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # A copy of the source tree: setuptools reuses a checkout's build/ folder, which may hold old files.
    source = tmp_path_factory.mktemp("source") / "gpuviz"
    skipped = (".git", "build", "dist", "*.egg-info", "__pycache__", ".whl", "traces", ".hypothesis", ".ruff_cache")
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*skipped))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                           "--no-index", "-q", "-w", str(out)], capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0 and "No module named" in done.stderr:
        pytest.skip(f"cannot build a wheel here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    return next(out.glob("gpuviz-*.whl"))


def test_the_wheel_carries_every_lesson_and_example(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    folders = [CATALOG / "lessons", CATALOG / "examples"]
    sources = [p for folder in folders for p in folder.iterdir() if p.suffix in (".py", ".md")]
    assert sources and all(f"gpuviz/catalog/{p.parent.name}/{p.name}" in names for p in sources)


@pytest.mark.slow
def test_an_installed_wheel_lists_the_whole_catalog_and_runs_a_lesson(wheel, tmp_path):
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
                           str(site), str(wheel)], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    run = subprocess.run(
        [sys.executable, "-c", CHECK.format(site=str(site))], capture_output=True, text=True, cwd=tmp_path
    )  # fmt: skip (not the checkout: nothing may come from it)
    assert run.returncode == 0, run.stdout + run.stderr
    kinds = [line.split()[1] for line in run.stdout.splitlines() if len(line.split()) > 1]
    listed = [kind for kind in kinds if kind in ("lesson", "race", "example")]
    expected = len(list((CATALOG / "lessons").glob("[0-9][0-9]-*.py"))) + len(list((CATALOG / "examples").glob("*.py")))
    assert len(listed) == expected
    assert "reference: ok" in run.stdout


def test_the_wheel_carries_the_pytest_plugin_and_its_entry_point(wheel):
    archive = zipfile.ZipFile(wheel)
    assert "gpuviz_pytest/__init__.py" in archive.namelist() and "gpuviz_pytest/checks.py" in archive.namelist()
    entry_points = next(name for name in archive.namelist() if name.endswith(".dist-info/entry_points.txt"))
    assert "[pytest11]\ngpuviz = gpuviz_pytest" in archive.read(entry_points).decode()


def test_the_wheel_carries_the_replay_widgets_browser_side(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"gpuviz/widget/replay.js", "gpuviz/widget/replay.css"} <= names
