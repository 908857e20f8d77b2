"""A view's picture that reads alone, as the app's slides do: its title (what it shows, what the colour
means), a line on the frame at the cursor, the drawing, and a legend of the colours shown (numbered entries
under one heading, core/colors.py: legend_groups; the race colour's swatch hatched as its cells are).
Its parts keep their places frame to frame, so the drawing never moves under the cursor."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpuviz.core.colors import RACE, legend_groups
from gpuviz.images.canvas import Look, ViewImage, blank, hatch, outline, put_text, text_width, wrapped

PAD = 6  # pixels around the drawing and the words
WORD_LINES, LEGEND_ROWS = 4, 3  # lines kept for the title and the frame's words, and for the legend


@dataclass(frozen=True)
class PanelLayout:
    """Where a panel's parts go: the drawing's box and its top left pixel."""

    text: int  # text size in pixels
    line: int  # one line of text
    lead: int  # lines above the title (a picture's kernel line)
    box: tuple[int, int]
    origin: tuple[int, int]


def panel_layout(size: tuple[int, int], text: int, lead: int = 0) -> PanelLayout:
    """The parts of a panel of (width, height) pixels with text of `text` pixels."""
    line = round(text * 1.3)
    top = PAD + line * (lead + WORD_LINES) + PAD // 2
    bottom = line * LEGEND_ROWS + PAD
    box = (max(1, size[0] - 2 * PAD), max(1, size[1] - top - bottom))
    return PanelLayout(text, line, lead, box, (PAD, top))


def panel(draw: Callable[[tuple[int, int]], ViewImage], size: tuple[int, int], look: Look, text: int = 13,
          lead: tuple[str, ...] = ()) -> ViewImage:  # fmt: skip
    """A view drawn by `draw(box)` with its words around it; what a click or a hover at a pixel of the
    panel picks is what the drawing picks there."""
    layout = panel_layout(size, text, len(lead))
    image = draw(layout.box)
    rgb = blank(size, look.background)
    (x0, y0), (width, height) = layout.origin, layout.box
    rgb[y0 : y0 + height, x0 : x0 + width] = image.rgb[:height, :width]
    pieces = legend_pieces(image.legend or [], image.outlines, layout, size[0])
    _fill_swatches(rgb, pieces, text - 2)
    y = PAD
    for words in lead:
        put_text(rgb, words, (PAD, y), look.muted, text)
        y += layout.line
    title = wrapped(image.title, size[0] - 2 * PAD, text)[:2]  # the frame's words take the lines left
    caption = wrapped(image.caption, size[0] - 2 * PAD, text)[: WORD_LINES - len(title)]
    for i, words in enumerate(title):
        _bold(rgb, (PAD, y + layout.line * i), words, look.text, text)
    for i, words in enumerate(caption):
        put_text(rgb, words, (PAD, y + layout.line * (len(title) + i)), look.muted, text)
    for piece in pieces:
        piece.draw(rgb, look, text)
    return ViewImage(rgb, image.caption, image.legend,
                     lambda x, y: image.pick(x - x0, y - y0), lambda x, y: image.hover(x - x0, y - y0),
                     image.title, image.outlines)  # fmt: skip


@dataclass(frozen=True)
class Piece:
    """One thing a legend draws at (x, y): words alone (a heading), or a swatch (filled or hollow) and words."""

    x: int
    y: int
    words: str
    rgb: tuple[int, int, int] | None = None
    hollow: bool = False

    def draw(self, rgb: np.ndarray, look: Look, text: int) -> None:
        if self.rgb is None:
            put_text(rgb, self.words, (self.x, self.y), look.muted, text)
            return
        side = text - 2
        if self.hollow:  # an outline in the drawing: a hollow square (filled ones are in the pixels already),
            outline(rgb, self.x + 1, self.y + 3, side - 2, side - 2, look.muted, 1)  # rimmed: white on a light theme
            outline(rgb, self.x + 2, self.y + 4, side - 4, side - 4, self.rgb, 1)
        put_text(rgb, self.words, (self.x + side + 5, self.y), look.text, text)


def legend_pieces(legend: list, outlines: list, layout: PanelLayout, width: int) -> list[Piece]:
    """The legend's pieces flowing left to right into LEGEND_ROWS rows under the drawing; what does not fit
    is left out (the widget's words say the rest)."""
    wanted = [(None, words, False) if rgb is None else (rgb, words, False)
              for heading, entries in legend_groups(legend)
              for rgb, words in ([(None, heading)] if heading else []) + entries]  # fmt: skip
    wanted += [(rgb, words, True) for rgb, words in outlines]
    text, line = layout.text, layout.line
    x, row, pieces = PAD, 0, []
    top = layout.origin[1] + layout.box[1] + PAD // 2
    for rgb, words, hollow in wanted:
        room = int(text_width(words, text)) + (0 if rgb is None else text + 3)
        if x > PAD and x + room > width - PAD:
            x, row = PAD, row + 1
        if row >= LEGEND_ROWS:
            break
        pieces.append(Piece(x, top + row * line, words, rgb, hollow))
        x += room + (text // 2 if rgb is None else text)
    return pieces


def _fill_swatches(rgb: np.ndarray, pieces: list[Piece], side: int) -> None:
    """The filled swatches, into the pixels; the race colour's hatched as its cells are."""
    for piece in pieces:
        if piece.rgb is not None and not piece.hollow:
            swatch = rgb[piece.y + 2 : piece.y + 2 + side, piece.x : piece.x + side]
            swatch[:] = piece.rgb
            if piece.rgb == RACE and "hatched" in piece.words:  # as its cells are (a story's row is not)
                hatch(swatch, np.ones(swatch.shape[:2], bool), spacing=4)


def _bold(rgb: np.ndarray, at: tuple[int, int], words: str, colour, text: int) -> None:
    """Words drawn twice a pixel apart: bold from Pillow's one built-in font."""
    for dx in (0, 1):
        put_text(rgb, words, (at[0] + dx, at[1]), colour, text)
