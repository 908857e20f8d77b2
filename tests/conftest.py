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
def _collect_qt_garbage_on_the_main_thread(request):
    """A Qt test's garbage goes on the main thread (the app collects on a GUI timer, gui_gc.py):
    never later in another test's loading thread."""
    yield
    if "qtbot" in request.fixturenames:
        import gc

        gc.collect()


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
