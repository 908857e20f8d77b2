"""The leak check of the Qt fixture (tests/qt_leaks.py) catches a timer left running, and lets one
that a test marks as deliberate."""

import os
from pathlib import Path

import pytest

from tests import qt_leaks

pytest.importorskip("PySide6")
pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent


def test_a_timer_left_running_is_named_and_a_stopped_one_is_not(qtbot):
    from PySide6.QtCore import QObject, QTimer

    qt_leaks.forget_starts()
    owner = QObject()
    timer = QTimer(owner)
    timer.start(60_000)
    assert qt_leaks.still_running() == ["QTimer (interval 60000 ms, parent QObject)"]
    assert qt_leaks.still_running(process_wide=(timer,)) == []
    timer.stop()
    assert qt_leaks.still_running() == []


LEAKY_TESTS = """
import pytest
from PySide6.QtCore import QTimer

kept = []


def test_leaks_a_timer(qtbot):
    kept.append(QTimer())
    kept[-1].start(60_000)


@pytest.mark.allow_qt_leaks
def test_leaks_a_timer_on_purpose(qtbot):
    kept.append(QTimer())
    kept[-1].start(60_000)


def test_stops_its_timer(qtbot):
    timer = QTimer()
    timer.start(60_000)
    timer.stop()
"""


def test_the_fixture_fails_a_test_that_leaks_a_timer(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    pytester.makeconftest("from tests.conftest import _qt_leaves_nothing_running  # noqa: F401\n")
    pytester.makeini("[pytest]\nmarkers =\n    allow_qt_leaks: on purpose\n")
    pytester.makepyfile(test_leaky=LEAKY_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_leaks_a_timer *",
                                 "*left running after the test: QTimer (interval 60000 ms)*"])  # fmt: skip
