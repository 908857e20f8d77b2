"""Labels that appear with zoom: text in the cells on screen, once a cell is big enough to hold it.
A few hundred TextItems at most; everything else stays one image (STYLE: pyqtgraph, fast)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont

from gpuviz.app.window import appearance

MAX_LABELS = 400


class CellLabels:
    """A pool of TextItems on a ViewBox, placed at cell centres."""

    def __init__(self, view: pg.ViewBox, colour=(235, 235, 245), min_pixels: float = 26.0, size: int = 10,
                 fill=(0, 0, 0, 90)) -> None:  # fmt: skip
        self.view = view
        self.fill = fill  # a faint backing, so text reads on light cells too
        self.colour = colour
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

    def show(self, places: list[tuple[float, float]], texts: list[str], anchor=(0.5, 0.5)) -> None:
        """Put texts at view coordinates; extra items hide."""
        count = min(len(places), MAX_LABELS)
        if self.font.pixelSize() != appearance.pixels(self.size):  # the font scale changed
            self.font.setPixelSize(appearance.pixels(self.size))
            for item in self.items:
                item.setFont(self.font)
        while len(self.items) < count:
            item = pg.TextItem(color=self.colour, anchor=anchor, fill=self.fill)
            item.setFont(self.font)
            self.view.addItem(item)
            self.items.append(item)
        for item, (x, y), text in zip(self.items, places[:count], texts[:count]):
            item.setAnchor(anchor)
            item.setText(text)
            item.setPos(x, y)
            item.setVisible(True)
        for item in self.items[count:]:
            item.setVisible(False)

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
