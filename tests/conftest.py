"""Test set-up: Qt offscreen before anything imports it; GPU tests skip where no GPU is usable."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

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
