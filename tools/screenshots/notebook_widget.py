"""Make the notebook replay widget's screenshots in docs/ from the real widget in headless Chromium (the same
page and driver as tests/test_widget_browser.py), at three cursor positions of a tiled matmul, each what a
1280 x 720 screen shows of it: `PYTHONPATH=. python tools/screenshots/notebook_widget.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import gpuviz  # noqa: E402
from gpuviz.widget.widget import ReplayWidget  # noqa: E402
from tests import widget_browser as wb  # noqa: E402
from tests.test_widget_browser import MATMUL  # noqa: E402

DOCS = ROOT / "docs"
SCREEN = (1280, 720)  # a laptop's screen: what a student sees of the widget without scrolling


def main() -> None:
    rng = np.random.default_rng(0)
    A, B = rng.random((16, 16), dtype=np.float32), rng.random((16, 16), dtype=np.float32)
    trace = gpuviz.trace(MATMUL, backend="sim", sms=2)[(2, 2), (8, 8)](A, B, np.zeros((16, 16), np.float32))
    widget = ReplayWidget(trace, views=("grid", "data", "timeline"))
    browser = wb.Browser(*SCREEN)
    server = wb.open_widget(widget, browser)
    try:
        replies = browser.evaluate("window.replies || 0")
        browser.click_selector("button.first")
        replies = wb_settle(browser, replies)
        shots = {"start": None, "first-barrier": "next-barrier", "second-barrier": "next-barrier"}
        for name, button in shots.items():
            if button:
                browser.click_selector(f"button.{button}")
                replies = wb_settle(browser, replies)
            if name == "second-barrier":  # a thread picked in the grid: its tile shows in the data view
                wb.click_on(browser, widget, "grid", ("thread", 70))
                replies = wb_settle(browser, replies)
            browser.screenshot(DOCS / f"notebook-widget-{name}.png", SCREEN)
            print(name, widget.frame, "| selected:", widget.selection)
    finally:
        server.close()
        browser.close()


def wb_settle(browser, replies: int) -> int:
    browser.wait_for(f"window.replies > {replies}")
    return browser.evaluate("window.replies")


if __name__ == "__main__":
    main()
