"""gpuviz's pytest plugin for course and assignment repositories: the `gpuviz_check` fixture runs a student's
kernel on the simulator and fails the test on races, memory errors, divergence or too many sectors per request,
with a picture of what went wrong; `pytest --gpuviz` also collects the scripts named by the `gpuviz_scripts`
ini option and checks every launch they make (docs/pytest-plugin.md).

It loads into every pytest session of an environment where gpuviz is installed (the `pytest11` entry point),
so this module imports pytest and the standard library only; gpuviz itself loads when a check runs."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

PICTURES = "gpuviz-failures"  # default folder for failure pictures, under the rootdir


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpuviz", "gpuviz: kernels checked on the simulator")
    group.addoption("--gpuviz", action="store_true", help="also collect the scripts named by gpuviz_scripts and "
                    "check every launch they make (races, memory errors, divergence)")  # fmt: skip
    parser.addini("gpuviz_scripts", "glob patterns, relative to the rootdir, of scripts `pytest --gpuviz` runs on "
                  "gpuviz's simulator", type="linelist", default=[])  # fmt: skip
    parser.addini("gpuviz_pictures", f"folder for the pictures of failed checks (default: {PICTURES})",
                  default=PICTURES)  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("gpuviz") and not config.getini("gpuviz_scripts"):
        raise pytest.UsageError("--gpuviz runs the scripts named by gpuviz_scripts: set it in the pytest "
                                "configuration, e.g. gpuviz_scripts = assignments/*/*.py")  # fmt: skip


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    config = parent.config
    if file_path.suffix != ".py" or not config.getoption("gpuviz"):
        return None
    relative = file_path.relative_to(config.rootpath).as_posix() if file_path.is_relative_to(config.rootpath) else ""
    if any(fnmatch.fnmatch(relative, pattern) for pattern in config.getini("gpuviz_scripts")):
        return GpuvizScript.from_parent(parent, path=file_path)
    return None


class GpuvizScript(pytest.File):
    """A student's script, run on the simulator as one test."""

    def collect(self):
        yield GpuvizScriptItem.from_parent(self, name="gpuviz")


class GpuvizScriptItem(pytest.Item):
    def runtest(self) -> None:
        from gpuviz_pytest.checks import Checker

        Checker(_pictures(self.config), self.nodeid).script(self.path)

    def repr_failure(self, excinfo, style=None):
        from gpuviz_pytest.checks import CheckFailed

        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"gpuviz: {self.path.name}"


@pytest.fixture
def gpuviz_check(request: pytest.FixtureRequest):
    """Runs kernels on gpuviz's simulator and checks them: `gpuviz_check.launch(kernel, grid, block, *args)`
    and `gpuviz_check.script(path)` (gpuviz_pytest/checks.py)."""
    from gpuviz_pytest.checks import Checker

    return Checker(_pictures(request.config), request.node.nodeid)


def _pictures(config: pytest.Config) -> Path:
    return config.rootpath / config.getini("gpuviz_pictures")
