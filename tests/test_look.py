"""Type and colour for a projector: one font scale for the lesson text's body, code, headings and links, in
the theme's colours, in normal and presentation mode (the window at a projector's 1280x720)."""

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from PySide6.QtCore import QPointF  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402

from gpuviz.app.window import appearance  # noqa: E402
from gpuviz.core.theme_colours import THEMES  # noqa: E402
from tests.test_app import pick, window  # noqa: E402, F401  (the fixture)


@pytest.fixture
def at_720p(qtbot, tmp_path, monkeypatch):
    """A first start on a projector's 1280x720 screen: the window fitted to it before it shows, as on a real one."""
    from PySide6.QtCore import QSize

    from gpuviz.app.window import screen_fit
    from gpuviz.app.window.main_window import MainWindow

    monkeypatch.setenv("GPUVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    win = MainWindow()
    qtbot.addWidget(win)
    screen_fit.fit(win, QSize(1280, 720))
    win.resize(1280, 720)
    win.show()
    yield win
    win.document.editor.document().setModified(False)
    win.close()


MARKDOWN = "## Title with a race of warps\n\nSome `array[0] += 1` read by a warp, then `i` again.\n\n### Predict\n\nok"


def runs(text) -> list[dict]:
    """Every run of text as drawn: its words, the pixel size of its glyphs, its heading level, whether it is a
    link or code, and its colour."""
    found = []
    block = text.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            chars = fragment.charFormat()
            for glyphs in fragment.glyphRuns():
                found.append({"words": fragment.text(), "pixels": glyphs.rawFont().pixelSize(),
                              "level": block.blockFormat().headingLevel(), "link": chars.isAnchor(),
                              "code": chars.fontFixedPitch(), "colour": chars.foreground().color().name()})  # fmt: skip
            it += 1
        block = block.next()
    return found


def assert_one_scale(text) -> None:
    """Body, code and links at the body's size; each heading at one size, bigger than the body."""
    drawn = runs(text)
    body = appearance.pixels(appearance.BASE_PIXELS)
    assert {r["pixels"] for r in drawn if r["level"] == 0} == {body}, drawn
    assert any(r["code"] for r in drawn) and any(r["level"] for r in drawn)
    for level in {r["level"] for r in drawn} - {0}:
        sizes = {r["pixels"] for r in drawn if r["level"] == level}
        assert len(sizes) == 1 and sizes.pop() > body, (level, drawn)


def test_lesson_text_keeps_one_font_scale_in_and_out_of_presentation_mode(qtbot, window):  # noqa: F811
    text = window.views["lesson"].text
    text.show_markdown(MARKDOWN)
    titled = [r for r in runs(text) if r["level"] == 2]
    assert any(r["link"] for r in titled) and any(not r["link"] for r in titled)  # a title with a glossary link
    assert any(r["link"] for r in runs(text) if r["level"] == 0)
    assert_one_scale(text)
    window.look.toggle_presentation()  # the text is not read again: what was drawn must follow the scale
    qtbot.wait(20)
    assert appearance.pixels(appearance.BASE_PIXELS) > appearance.BASE_PIXELS
    assert_one_scale(text)
    window.look.toggle_presentation()
    qtbot.wait(20)
    assert_one_scale(text)  # code read at the big size does not stay big


def test_a_lesson_read_on_the_stage_keeps_one_font_scale(qtbot, window):  # noqa: F811
    window.look.toggle_presentation()
    pick(window, "the-race")
    assert_one_scale(window.views["lesson"].text)
    window.look.toggle_presentation()
    assert_one_scale(window.views["lesson"].text)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_links_errors_and_text_take_the_theme_tables_colours(qtbot, window, theme):  # noqa: F811
    """What the contrast test checks is what the window draws: links, the status line's errors, the text."""
    colours = THEMES[theme]
    text = window.views["lesson"].text
    text.show_markdown(MARKDOWN)
    window.look.set_theme("dark" if theme == "light" else "light")
    window.look.set_theme(theme)  # links drawn before the change take the new theme's colour
    assert {r["colour"] for r in runs(text) if r["link"]} == {colours.link}
    window.set_status("error: something went wrong", error=True)
    status = window.status
    assert status.palette().color(QPalette.ColorRole.WindowText) == QColor(colours.bad)
    window.set_status("all fine")
    assert status.palette().color(QPalette.ColorRole.WindowText) == QColor(colours.text)
    assert text.palette().color(QPalette.ColorRole.Base) == QColor(colours.field)


# ---- the palette: a preference, kept in the settings ---------------------------------------------------
import numpy as np  # noqa: E402

import gpuviz  # noqa: E402
from gpuviz.core.colors import DEFAULT_PALETTE, RACE, palette  # noqa: E402

RACY = "from numba import cuda\n@cuda.jit\ndef k(a, b):\n    i = cuda.grid(1)\n    a[0] += 1.0\n    b[i] = i\n"


def swatches(items) -> list[tuple[int, int, int]]:
    return [tuple(int(c) for c in rgb) for rgb, _ in items]


def palette_colours(name: str) -> list[tuple[int, int, int]]:
    return [tuple(int(c) for c in colour) for colour in palette(name)]


def test_the_palette_preference_recolours_grid_data_timeline_and_legends_and_is_kept(qtbot, window):  # noqa: F811
    from gpuviz.app.pictures.picture import image_array
    from gpuviz.app.window.main_window import MainWindow
    from gpuviz.app.window.preferences import Preferences, PreferencesDialog

    launch = gpuviz.trace(RACY, backend="sim")[10, 32](np.zeros(1), np.zeros(320))
    window.state.set_trace(launch, [launch])
    grid, data, timeline = (window.views[name] for name in ("grid", "data", "timeline"))
    for view in (data, timeline):
        window.tabs.setCurrentWidget(view)  # views draw once shown
        qtbot.waitUntil(lambda v=view: not v.busy(), timeout=10_000)
    timeline.mode.setCurrentIndex(timeline.mode.findText("block"))  # a colour per block, not per wave
    assert window.state.palette == DEFAULT_PALETTE
    assert swatches(grid.legend_items())[1:] == palette_colours(DEFAULT_PALETTE)
    dialog = PreferencesDialog(Preferences.load(), window)
    qtbot.addWidget(dialog)
    dialog.palette.setCurrentIndex(dialog.palette.findData("high contrast"))
    chosen = dialog.chosen()
    chosen.save()
    window.apply_preferences(chosen)
    wanted = palette_colours("high contrast")
    assert swatches(grid.legend_items())[1:] == wanted  # the grid's legend, after "not started yet"
    window.state.set_order("logical")  # every cell in its block's colour (the replay dims finished threads)
    window.tabs.setCurrentWidget(grid)
    qtbot.wait(50)
    drawn = image_array(grid.graphics.grab().toImage())
    assert set(wanted) <= set(map(tuple, np.unique(drawn.reshape(-1, 3), axis=0).tolist()))
    assert swatches(timeline.legend_items())[: len(wanted)] == wanted
    assert swatches(data.legend_items())[: len(wanted)] == wanted
    assert RACE in swatches(data.legend_items())  # a[0], written by all 320 threads
    again = MainWindow()  # the next session starts with it
    qtbot.addWidget(again)
    assert again.state.palette == "high contrast"
    again.close()


# ---- races: a sign or hatching as well as red ---------------------------------------------------------
def test_races_and_lost_updates_are_marked_by_a_sign_as_well_as_by_colour(qtbot, window):  # noqa: F811
    from PySide6.QtCore import QPoint, QRect, QSize, Qt
    from PySide6.QtWidgets import QDockWidget, QScrollArea

    from gpuviz.app.pictures.picture import image_array
    from tests.test_app import raise_dock_of

    launch = gpuviz.trace(RACY, backend="sim")[10, 32](np.zeros(1), np.zeros(320))
    window.state.set_trace(launch, [launch])
    window.state.set_order("logical")
    data = window.views["data"]
    window.tabs.setCurrentWidget(data)
    qtbot.waitUntil(lambda: not data.busy(), timeout=10_000)
    assert data.current_array() == 0  # a: its one element written by all 320 threads
    assert data.races.brush().style() == Qt.BrushStyle.BDiagPattern and data.races.path().contains(QPointF(0.5, 0.5))
    assert "▨" in data.caption.text() and "hatched" in data.caption.text()
    drawn = {tuple(p) for p in image_array(data.graphics.grab().toImage()).reshape(-1, 3).tolist()}
    assert RACE in drawn and (0, 0, 0) in drawn  # the red and its hatching, on screen
    data.array.setCurrentIndex(data.array.findData(1))  # b: one writer per element, nothing hatched
    qtbot.waitUntil(lambda: not data.busy(), timeout=10_000)
    assert data.races.path().isEmpty()
    races = window.views["races"]
    rows = [races.races.item(r).text() for r in range(races.races.count())]
    assert rows and all(row.startswith(("✗ ", "= ")) for row in rows), rows
    story = window.views["story"]
    raise_dock_of(story)
    dock = next(d for d in window.findChildren(QDockWidget) if d.isAncestorOf(story))
    window.resizeDocks([dock], [300], Qt.Orientation.Horizontal)  # a narrow panel
    window.state.select_element((0, 0, None))
    qtbot.waitUntil(lambda: story.table.rowCount() > 0 and not story.busy(), timeout=10_000)
    lost = [story.table.item(r, 6).text() for r in range(story.table.rowCount()) if story.table.item(r, 6).text()]
    assert lost and all(text.startswith("✗ ") for text in lost)
    area = story.parentWidget()
    while not isinstance(area, QScrollArea):
        area = area.parentWidget()
    table, column = story.table, 6  # "lost": in the panel's sight, not off its edge
    left = table.viewport().mapTo(area.viewport(), QPoint(table.columnViewportPosition(column), 0))
    assert area.viewport().rect().contains(QRect(left, QSize(table.columnWidth(column), 1)))


# ---- block labels in pictures -----------------------------------------------------------------------
from gpuviz.core.layout import grid_layout  # noqa: E402
from tests.test_block_labels import tile_of  # noqa: E402

LABELLED = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = i\n"


def assert_block_labels_on_their_blocks(grid, trace) -> None:
    """Every block labelled, each label on its own block (or, for thin blocks stacked in one column, beside it
    on its own row, left of the grid) and whole on the picture (block 0 named block 0)."""
    shown = [item for item in grid.block_labels.items if item.isVisible()]
    assert sorted(item.textItem.toPlainText() for item in shown) == [f"block {b}" for b in range(trace.grid[0])]
    picture = grid.view.sceneBoundingRect()
    layout = grid_layout(trace.grid, trace.block)
    for item in shown:
        block = int(item.textItem.toPlainText().split()[-1])
        x0, y0, x1, y1 = tile_of(layout, trace.grid, block)
        middle = item.mapToView(item.boundingRect().center())
        beside = middle.x() < x0 == 0
        assert (beside or x0 <= middle.x() < x1) and y0 <= middle.y() <= y1, (block, middle)  # on its own block
        assert picture.contains(item.sceneBoundingRect()), block  # not cut by the picture's edge


@pytest.mark.parametrize("size", [(640, 360), (960, 540), (1920, 1080)])
def test_in_pictures_of_every_size_block_0s_label_is_on_block_0_and_every_label_is_on_the_picture(size):
    """A small GIF or a notebook picture named block 0 "block 1": the label sat above its block, over the one
    before; block 0's own was off the top of the picture."""
    from gpuviz.app.pictures.picture import PictureOptions
    from gpuviz.app.pictures.render import slide_for
    from gpuviz.scene.scene import scene_at

    trace = gpuviz.trace(LABELLED, backend="sim")[6, 64](np.zeros(384))
    slide = slide_for(scene_at(trace), "grid", "dark")
    try:
        slide.image(PictureOptions(size))  # lays the slide out at that size
        assert_block_labels_on_their_blocks(slide.view, trace)
    finally:
        slide.close()


@pytest.mark.parametrize("presenting", [False, True], ids=["everyday", "presenting"])
def test_in_the_window_at_1280x720_the_top_rows_block_labels_show(qtbot, at_720p, presenting):
    win = at_720p
    if presenting:
        win.look.toggle_presentation()
    trace = gpuviz.trace(LABELLED, backend="sim")[6, 64](np.zeros(384))
    win.state.set_trace(trace, [trace])
    grid = win.views["grid"]
    win.tabs.setCurrentWidget(grid)
    qtbot.waitUntil(lambda: any(item.isVisible() for item in grid.block_labels.items), timeout=10_000)
    grid.graphics.grab()  # drawn once: text items place themselves on the screen as they are painted
    assert_block_labels_on_their_blocks(grid, trace)


# ---- the Memory tab at 1280x720 ----------------------------------------------------------------------
def fits_its_cell(table, row: int, column: int) -> bool:
    """Whether a cell's text, wrapped at its column's width as the table draws it, fits the cell whole."""
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtWidgets import QStyle

    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1) + 1  # Qt's
    text, width = table.item(row, column).text(), table.columnWidth(column) - margin
    drawn = table.fontMetrics().boundingRect(QRect(0, 0, width, 100_000), Qt.TextFlag.TextWordWrap, text)
    return drawn.width() <= width and drawn.height() <= table.rowHeight(row)


@pytest.mark.parametrize("presenting", [False, True], ids=["everyday", "presenting"])
def test_the_memory_tab_fits_1280x720_with_no_text_across_a_bar_and_no_column_cut(qtbot, at_720p, presenting):
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QLabel

    from gpuviz.core.analysis.report import analyse
    from tests.test_memory_view import TILE

    win = at_720p
    if presenting:
        win.look.toggle_presentation()
    a, b = np.arange(256, dtype=np.float32).reshape(16, 16), np.zeros((16, 16), np.float32)
    trace = gpuviz.trace(TILE, backend="sim")[(2, 2), (8, 8)](a, b)
    trace.analysis = analyse(trace)
    win.state.set_trace(trace, [trace])
    win.state.set_caption("The tiled launch, line 10: warp 0 reads the tile down a column, all its lanes in one bank: "
                          "a conflict, as a lesson's evidence says it in the banner above the views.")  # fmt: skip
    memory = win.views["memory"]
    win.tabs.setCurrentWidget(memory)
    qtbot.wait(50)
    assert win.size().toTuple() == (1280, 720)
    for bar in (memory.theoretical, memory.measured):
        assert not bar.isTextVisible() and bar.isVisible()  # its words are above it, never across its end
    assert "Theoretical occupancy" in memory.theoretical_words.text()
    table = memory.table
    assert table.rowCount() == 4 and table.horizontalScrollBar().maximum() == 0  # no column off the edge
    shown = [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
    assert set(range(table.columnCount())) - set(shown) <= set(table.optional)  # only the code may step aside
    assert presenting is False or len(shown) == table.columnCount()  # on the stage there is room for it
    assert sum(table.columnWidth(c) for c in shown) <= table.viewport().width()
    header = table.horizontalHeader()
    assert all(header.sectionSizeHint(c) <= table.columnWidth(c) for c in shown)
    assert [(r, c) for r in range(table.rowCount()) for c in shown if not fits_its_cell(table, r, c)] == []
    view = QRect(memory.mapTo(win, QPoint(0, 0)), memory.size())
    shown_parts = []
    for part in (table, memory.plot):  # the table and the drawing on screen, inside the tab, apart
        seen = part.visibleRegion().boundingRect()  # a scrolled panel shows part of the table
        shown_parts.append(QRect(part.mapTo(win, seen.topLeft()), seen.size()))
        assert seen.width() > 100 and seen.height() > 100, (part, seen)
        assert view.contains(shown_parts[-1]) and win.rect().contains(shown_parts[-1])
    assert not shown_parts[0].intersects(shown_parts[1])
    picked = table.selectedIndexes()[0].row()  # the costliest line (a lesson's evidence picks one alike)
    qtbot.waitUntil(lambda: row_in_sight(memory, picked), timeout=5_000)
    words = [label for label in memory.findChildren(QLabel) if label.isVisibleTo(win) and label.text()]
    assert words and all(label.heightForWidth(label.width()) <= label.height() + 2 for label in words)


def row_in_sight(memory, row: int) -> bool:
    """Whether a table row shows in the Memory view's scrolling panel."""
    from PySide6.QtCore import QRect

    cell = memory.table.visualRect(memory.table.model().index(row, 0))
    top_left = memory.table.viewport().mapTo(memory.panel.viewport(), cell.topLeft())
    return memory.panel.viewport().rect().contains(QRect(top_left, cell.size()))


def test_column_widths_share_the_room_and_never_go_below_a_columns_longest_word():
    from gpuviz.app.widgets.fitting_table import column_widths

    narrowest, widest = [30, 50, 40], [30, 150, 90]
    assert column_widths(narrowest, widest, 400) == widest  # room for every text on one line
    tight = column_widths(narrowest, widest, 200)
    assert sum(tight) <= 200 and all(w >= n for w, n in zip(tight, narrowest))
    assert tight[1] - narrowest[1] > tight[2] - narrowest[2]  # the column that wraps most gets most
    assert column_widths(narrowest, widest, 100) == narrowest  # too little room: the table scrolls


@pytest.mark.parametrize("size", [(640, 360), (1280, 720)])
def test_a_thin_grid_marked_at_one_thread_fills_the_picture_and_keeps_its_first_threads_in_sight(size):
    """Four blocks of 64 in one column with block 1's thread 0 marked (a lesson's evidence): the window
    around a mark too small to see spanned three times the grid, and the labels, inside the rows, hid each
    block's first threads, which a block sum puts its result in."""
    from dataclasses import replace

    from gpuviz.app.pictures.picture import PictureOptions
    from gpuviz.app.pictures.render import slide_for
    from gpuviz.core.marks import Mark
    from gpuviz.scene.scene import scene_at

    trace = gpuviz.trace(LABELLED, backend="sim")[4, 64](np.zeros(256))
    scene = replace(scene_at(trace), marks=(Mark("thread 0 of block 1", threads=np.array([64])),))
    slide = slide_for(scene, "grid", "dark")
    try:
        slide.image(PictureOptions(size))
        grid = slide.view
        layout = grid_layout(trace.grid, trace.block)
        (x0, x1), _ = grid.view.viewRange()
        assert x1 - x0 < 1.5 * layout.width  # the grid, and room for its labels: not a window three times as wide
        shown = [item for item in grid.block_labels.items if item.isVisible()]
        assert len(shown) == 4
        for item in shown:  # beside its row, left of the grid: no thread under it
            assert item.mapRectToView(item.boundingRect()).right() <= 0.0, item.textItem.toPlainText()
    finally:
        slide.close()
