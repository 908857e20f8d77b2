"""Test set-up: Qt offscreen before anything imports it; GPU tests skip where no GPU is usable."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("GPUVIZ_WARM_WORKER", "0")  # a window starts no worker ahead unless a test asks

import numpy as np  # noqa: E402
import pytest  # noqa: E402


def _gpu_reason() -> str | None:
    from gpuviz.backends import unavailable_reason

    return unavailable_reason("gpu")


def pytest_collection_modifyitems(config, items):
    gpu_tests = [item for item in items if "gpu" in item.keywords]
    if not gpu_tests:
        return
    reason = _gpu_reason()
    if reason:
        skip = pytest.mark.skip(reason=f"no usable GPU: {reason}")
        for item in gpu_tests:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _qt_leaves_nothing_running(request):
    """A Qt test's garbage goes on the main thread (the app collects on a GUI timer, gui_gc.py):
    never later in another test's loading thread. Then no QTimer it started may still be active and no
    QThread still running (tests/qt_leaks.py); `@pytest.mark.allow_qt_leaks` is for the rare test
    that leaves one on purpose."""
    if "qtbot" not in request.fixturenames:
        yield
        return
    from tests import qt_leaks

    qt_leaks.watch_starts()
    qt_leaks.forget_starts()
    yield
    leaks = qt_leaks.still_running(process_wide=qt_leaks.app_timers())
    if leaks and request.node.get_closest_marker("allow_qt_leaks") is None:
        pytest.fail("left running after the test: " + "; ".join(leaks), pytrace=False)


@pytest.fixture
def sim_run():
    """Run kernel source text on the simulator: sim_run(src, grid, block, *args, name=..., **opts)."""
    import gpuviz

    def run(source, grid, block, *args, name=None, **options):
        options.setdefault("backend", "sim")
        return gpuviz.trace(source, name=name, **options)[grid, block](*args)

    return run


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _own_settings_and_data(tmp_path_factory, monkeypatch):
    """Every test has its own settings and user data folder (autosaves, copies of lessons), and the
    app's questions (unsaved changes, restore an autosave) are answered without a dialog:
    discard and no, unless a test answers otherwise (`questions` records what was asked)."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("GPUVIZ_SETTINGS", str(home / "settings.ini"))
    monkeypatch.setenv("GPUVIZ_DATA", str(home / "data"))
    try:
        from gpuviz.app.control import document
    except ImportError:  # no Qt here: the app's tests skip
        return
    monkeypatch.setattr(document, "ask", lambda parent, title, text: "discard")
    monkeypatch.setattr(document, "offer", lambda parent, title, text: False)
