"""The replay widget in a real headless Chromium (tests/widget_browser.py): moving the cursor changes the
pictures, stepping to the next barrier stops where a barrier releases the threads, and a click on a thread in
the grid selects it in every view. Chromium comes from the system's packages (.ci/run installs it in CI,
where its absence fails the test instead of skipping it)."""

import numpy as np
import pytest

pytest.importorskip("anywidget", reason="the widget needs the notebook extra (anywidget)")
pytest.importorskip("tornado", reason="the page's server needs tornado (the test extra brings it with ipykernel)")

from tests import widget_browser as wb  # noqa: E402  (after the skips: it imports tornado)

if wb.chromium() is None and not wb.in_ci():
    pytest.skip("no chromium on this machine (apt-get install chromium)", allow_module_level=True)

MATMUL = """
from numba import cuda, float32

TILE = 8

@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0)  # float32 throughout: 0.0 would make it a float64
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[tx, ty] = A[x, t * TILE + ty]
        sB[tx, ty] = B[t * TILE + tx, y]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[tx, k] * sB[k, ty]
        cuda.syncthreads()
    C[x, y] = acc
"""


@pytest.fixture(scope="module")
def matmul():
    import gpuviz

    rng = np.random.default_rng(0)
    A, B = rng.random((16, 16), dtype=np.float32), rng.random((16, 16), dtype=np.float32)
    return gpuviz.trace(MATMUL, backend="sim", sms=2)[(2, 2), (8, 8)](A, B, np.zeros((16, 16), np.float32))


@pytest.fixture
def browser():
    assert wb.chromium() is not None, "chromium is missing: .ci/run installs it (apt-get install chromium)"
    browser = wb.Browser()
    yield browser
    browser.close()


def pictures(browser) -> dict:
    return browser.evaluate("Object.fromEntries([...document.querySelectorAll('.panes img')].map(i => [i.alt, i.src]))")


def settle(browser, replies: int) -> int:
    """Wait until the page has had one more answer from Python than `replies`; the new count."""
    browser.wait_for(f"window.replies > {replies}")
    return browser.evaluate("window.replies")


def test_a_click_selects_in_every_view_and_the_cursor_moves_the_pictures_in_chromium(matmul, browser):
    from gpuviz.widget.widget import ReplayWidget

    widget = ReplayWidget(matmul, views=("grid", "data", "timeline"))
    server = wb.open_widget(widget, browser)
    try:
        assert set(pictures(browser)) == {"grid", "data", "timeline"}
        assert browser.evaluate("document.querySelector('.source .here') !== null")
        replies = browser.evaluate("window.replies || 0")
        gid = 70  # a thread of block 1: clicked where the grid picture Python drew has its cell
        before = pictures(browser)
        wb.click_on(browser, widget, "grid", ("thread", gid))
        replies = settle(browser, replies)
        browser.wait_for("document.querySelector('.selection').textContent.includes('selected')")
        assert widget.model.state.selected == gid
        after = pictures(browser)
        assert all(after[v] != before[v] for v in after), "the selection shows in every view"
        end = after
        browser.click_selector("button.first")  # the cursor to the start: every picture changes
        replies = settle(browser, replies)
        start = pictures(browser)
        assert widget.frame == 0 and all(start[v] != end[v] for v in end)
        assert browser.evaluate("document.querySelector('.position').textContent").startswith("0 /")

        browser.click_selector("button.next-barrier")  # every thread up to the first barrier
        replies = settle(browser, replies)
        barrier = widget.model.state.replay.next_stop(0, "barrier")
        assert 0 < widget.frame == barrier < widget.frames - 1
        assert pictures(browser)["grid"] != start["grid"]
        line = widget.model.line()
        assert browser.evaluate("document.querySelector('.source .here').textContent").startswith(f"{line:>3}")

        before = pictures(browser)["data"]  # the data view's colours picked in the page: times read
        browser.evaluate("(() => { const s = document.querySelector('select.data-mode'); s.value = 'times read';"
                         " s.dispatchEvent(new Event('change')); })()")  # fmt: skip
        replies = settle(browser, replies)
        assert widget.data_mode == "times read" and pictures(browser)["data"] != before
        assert widget.model.picture("data").legend[0][1] == "never read"

    finally:
        server.close()
