"""Labels that appear with zoom: text in the cells on screen, once a cell is big enough to hold it.
A few hundred TextItems at most; everything else stays one image (STYLE: pyqtgraph, fast)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics

from gpuviz.app.widgets import plot_theme
from gpuviz.app.window import appearance
from gpuviz.core.theme_colours import LABEL_BACKING, LABEL_TEXT, rgb

MAX_LABELS = 400
WHITE = rgb(LABEL_TEXT)


class CellLabels:
    """A pool of TextItems on a ViewBox, placed at cell centres."""

    def __init__(self, view: pg.ViewBox, min_pixels: float = 26.0, size: int = 10, on_plot: bool = False,
                 above: bool = False) -> None:  # fmt: skip
        """`on_plot`: labels beside the picture, on the plot's background, in its theme's muted colour; else
        labels over cells of any colour, white on a dark backing (contrast in core/theme_colours.py).
        `above`: over other labels (block names over thread ids), on a backing that hides what is under it."""
        self.view = view
        self.on_plot = on_plot
        self.above = above
        self.min_pixels = min_pixels
        self.size = size  # pixels at font scale 1
        self.font = QFont()
        self.items: list[pg.TextItem] = []

    def pixels_per_cell(self) -> float:
        (x0, x1), _ = self.view.viewRange()
        return self.view.width() / max(1e-9, x1 - x0)

    def visible(self, width: int, height: int) -> tuple[int, int, int, int]:
        """The cells on screen: x0, x1, y0, y1 (ends exclusive)."""
        (x0, x1), (y0, y1) = self.view.viewRange()
        return max(0, int(x0)), min(width, int(np.ceil(x1))), max(0, int(y0)), min(height, int(np.ceil(y1)))

    def room_left(self) -> float:
        """How many cells of the picture's own room lie left of its first column (0 when none)."""
        (x0, _), _ = self.view.viewRange()
        return max(0.0, -float(x0))

    def show(self, places: list[tuple[float, float]], texts: list[str], anchor=(0.5, 0.5)) -> None:
        """Put texts at view coordinates; extra items hide."""
        count = min(len(places), MAX_LABELS)
        self._follow_scale()
        while len(self.items) < count:
            backing = (*LABEL_BACKING[:3], 255) if self.above else LABEL_BACKING
            item = pg.TextItem(color=WHITE, anchor=anchor, fill=None if self.on_plot else backing)
            item.setFont(self.font)
            item.setZValue(2 if self.above else 1)
            self.view.addItem(item)
            if self.on_plot:
                plot_theme.follow(item, "muted")
            self.items.append(item)
        for item, (x, y), text in zip(self.items, places[:count], texts[:count]):
            item.setAnchor(anchor)
            item.setText(text)
            item.setPos(x, y)
            item.setVisible(True)
        for item in self.items[count:]:
            item.setVisible(False)

    def text_size(self, text: str) -> tuple[int, int]:
        """The width and height in screen pixels that `text` takes, backing included, at the scale in force."""
        self._follow_scale()
        metrics = QFontMetrics(self.font)
        return metrics.horizontalAdvance(text) + 4, metrics.height() + 4

    def _follow_scale(self) -> None:
        if self.font.pixelSize() != appearance.pixels(self.size):  # the font scale changed
            self.font.setPixelSize(appearance.pixels(self.size))
            for item in self.items:
                item.setFont(self.font)

    def clear(self) -> None:
        self.show([], [])

    def label_cells(self, owner: np.ndarray, text_of: Callable[[np.ndarray], list[str]]) -> None:
        """Label every visible owned cell (owner >= 0) with text_of(owners), when they are big and few."""
        height, width = owner.shape
        x0, x1, y0, y1 = self.visible(width, height)
        if self.pixels_per_cell() < self.min_pixels * appearance.scale() or x1 <= x0 or y1 <= y0:
            self.clear()
            return
        window = owner[y0:y1, x0:x1]
        ys, xs = np.nonzero(window >= 0)
        if len(xs) > MAX_LABELS:
            self.clear()
            return
        places = list(zip((xs + x0 + 0.5).tolist(), (ys + y0 + 0.5).tolist()))
        self.show(places, text_of(window[ys, xs]))
