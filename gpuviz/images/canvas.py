"""Pixels without Qt: colour codes to RGB through a lookup table, a picture of cells fitted to a box (one
cell a block of pixels, or cells strided down to one a pixel, never an average of codes), text, PNG."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from gpuviz.core.theme_colours import THEMES

BORDERED = 6  # pixels a cell from which cells get borders: smaller, a border would hide the colour
HATCH = (0, 0, 0)  # the race's hatching, as the app's (black diagonals)
Pick = tuple[str, object] | None  # what a click on a picture picks: ("thread", gid), ("element", (...)), ("event", k)


@dataclass(frozen=True)
class Cells:
    """A picture of cells placed in a box: `first` is the first cell shown, each cell `size` pixels wide
    (below 1: cells strided down, `step` cells a pixel), drawn from pixel `origin`."""

    origin: tuple[int, int]  # where the cells start in the box (x, y) in pixels
    first: tuple[int, int]  # (x, y) of the first cell shown
    size: int  # pixels a cell (1 where strided)
    step: int  # cells a pixel (1 where enlarged)
    shape: tuple[int, int]  # (rows, columns) of cells shown

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The cell (column, row) under pixel (x, y) of the box, None off the cells."""
        column = int((x - self.origin[0]) // self.size)
        row = int((y - self.origin[1]) // self.size)
        if not (0 <= row < self.shape[0] and 0 <= column < self.shape[1]):
            return None
        return self.first[0] + column * self.step, self.first[1] + row * self.step

    def pixel_of(self, column: int, row: int) -> tuple[int, int]:
        """The top left pixel of a cell (one shown, or the pixel a strided-over cell falls in)."""
        return (self.origin[0] + (column - self.first[0]) // self.step * self.size,
                self.origin[1] + (row - self.first[1]) // self.step * self.size)  # fmt: skip


@dataclass(frozen=True)
class Look:
    """A theme's colours for pictures (core/theme_colours.py)."""

    background: tuple[int, int, int]
    text: tuple[int, int, int]
    muted: tuple[int, int, int]


def look(theme: str) -> Look:
    """The pictures' colours of a theme: "dark" or "light"."""
    if theme not in THEMES:
        raise ValueError(f"unknown theme {theme!r}; themes: {', '.join(THEMES)}")
    colours = THEMES[theme]
    return Look(rgb_of(colours.picture), rgb_of(colours.text), rgb_of(colours.muted))


@dataclass
class ViewImage:
    """One view drawn: its pixels, its title (what it shows and what its colour means), a line on the frame
    at the cursor, its legend (filled swatches) and outlines (hollow ones), and what a click picks."""

    rgb: np.ndarray  # (height, width, 3) uint8
    caption: str = ""
    legend: list[tuple[tuple[int, int, int], str]] | None = None
    pick: Callable[[float, float], Pick] = lambda _x, _y: None
    hover: Callable[[float, float], str] = lambda _x, _y: ""
    title: str = ""
    outlines: list[tuple[tuple[int, int, int], str]] = field(default_factory=list)


def blank(box: tuple[int, int], colour: tuple[int, int, int]) -> np.ndarray:
    width, height = box
    rgb = np.empty((max(1, height), max(1, width), 3), np.uint8)
    rgb[:] = colour
    return rgb


def fit_cells(codes: np.ndarray, lut: np.ndarray, box: tuple[int, int], background,
              hidden: np.ndarray | None = None, hatched: int | None = None) -> tuple[np.ndarray, Cells]:  # fmt: skip
    """Codes (rows, columns) painted through `lut` and centred in a box (width, height) of pixels: whole
    pixels a cell where they fit, else every `step`-th cell (the app's grid shows the nearest cell too).
    `hidden` cells (the gaps between blocks) take the background's colour; cells of code `hatched` are
    hatched (never told by colour alone); cells of BORDERED pixels or more get a border of the background's
    colour, so that each thread or element is a cell of its own."""
    rows, columns = codes.shape
    width, height = box
    size = max(1, min(width // max(columns, 1), height // max(rows, 1)))
    step = 1 if size > 1 or (columns <= width and rows <= height) else -(-max(columns / width, rows / height) // 1)
    step = int(step)
    shown = codes[::step, ::step]
    rgb = lut[shown][..., :3]
    if hidden is not None:
        rgb[hidden[::step, ::step]] = background
    if size > 1:
        rgb = rgb.repeat(size, axis=0).repeat(size, axis=1)
    if hatched is not None:
        hatch(rgb, (shown == hatched).repeat(size, axis=0).repeat(size, axis=1))
    if size >= BORDERED:
        rgb[::size, :] = background
        rgb[:, ::size] = background
    out = blank(box, background)
    x0, y0 = (width - rgb.shape[1]) // 2, (height - rgb.shape[0]) // 2
    out[y0 : y0 + rgb.shape[0], x0 : x0 + rgb.shape[1]] = rgb
    return out, Cells((x0, y0), (0, 0), size, step, shown.shape)


def hatch(rgb: np.ndarray, where: np.ndarray, spacing: int = 5) -> None:
    """Diagonal lines (bottom left to top right, as the app's) over the pixels `where` is true."""
    if not where.any():
        return
    rows, columns = np.indices(where.shape, sparse=True)
    rgb[where & ((rows + columns) % spacing == 0)] = HATCH


def outline(rgb: np.ndarray, x: int, y: int, w: int, h: int, colour, width: int = 2) -> None:
    """A rectangle's outline drawn into the pixels (clipped to them)."""
    height, full = rgb.shape[:2]
    x0, y0, x1, y1 = max(0, x - width), max(0, y - width), min(full, x + w + width), min(height, y + h + width)
    if x1 <= x0 or y1 <= y0:
        return
    rgb[y0 : min(y1, y0 + width), x0:x1] = colour
    rgb[max(y0, y1 - width) : y1, x0:x1] = colour
    rgb[y0:y1, x0 : min(x1, x0 + width)] = colour
    rgb[y0:y1, max(x0, x1 - width) : x1] = colour


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's own font (no system font needed), at a size in pixels."""
    return ImageFont.load_default(size)


@lru_cache(maxsize=4096)
def _text_mask(words: str, size: int) -> tuple[np.ndarray, int, int]:
    """The words' coverage (0-255) and where it starts from the pen: legends, titles and labels repeat
    frame to frame, so each is rendered once (a move of the cursor draws a hundred of them)."""
    left, top, right, bottom = font(size).getbbox(words)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(mask).text((-left, -top), words, fill=255, font=font(size))
    return np.asarray(mask), left, top


def put_text(rgb: np.ndarray, words: str, at: tuple[int, int], colour, size: int = 12) -> None:
    """Words drawn into the pixels at pen position `at` (clipped to them), antialiased over what is there."""
    if not words:
        return
    mask, left, top = _text_mask(words, size)
    x, y = int(at[0]) + left, int(at[1]) + top
    height, width = rgb.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(width, x + mask.shape[1]), min(height, y + mask.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    alpha = mask[y0 - y : y1 - y, x0 - x : x1 - x, None].astype(np.float32) / 255
    under = rgb[y0:y1, x0:x1]
    under[:] = (under * (1 - alpha) + np.asarray(colour, np.float32) * alpha).astype(np.uint8)


def write_at(rgb: np.ndarray, items: list[tuple[str, tuple[int, int, int], tuple[int, int]]], size: int = 12) -> None:
    """Texts each at its own pixel (x, y), drawn into the pixels in place."""
    for text, colour, at in items:
        put_text(rgb, text, at, colour, size)


def write_boxed(rgb: np.ndarray, items: list[tuple[str, tuple[int, int]]], size: int = 11) -> None:
    """White words on black boxes (the app's block labels), each at its own pixel, in place."""
    for text, (x, y) in items:
        mask, left, top = _text_mask(text, size)
        x0, y0 = max(0, x + left - 2), max(0, y + top - 1)
        rgb[y0 : max(y0, y + top + mask.shape[0] + 1), x0 : max(x0, x + left + mask.shape[1] + 2)] = 0
        put_text(rgb, text, (x, y), (255, 255, 255), size)


@lru_cache(maxsize=8192)
def text_width(words: str, size: int) -> float:
    return font(size).getlength(words)


def wrapped(text: str, width: int, size: int) -> list[str]:
    """Words of a text in lines no wider than `width` pixels."""
    lines, line, used = [], "", 0.0
    space = text_width(" ", size)
    for word in text.split():
        room = text_width(word, size)  # words measured once each (kerning across a space is left out)
        if line and used + space + room > width:
            lines.append(line)
            line, used = word, room
        else:
            line, used = (f"{line} {word}", used + space + room) if line else (word, room)
    return [*lines, line] if line else lines


def png(rgb: np.ndarray) -> bytes:
    """The pixels as PNG bytes."""
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="PNG", optimize=False, compress_level=1)  # speed over bytes
    return buffer.getvalue()


def rgb_of(hex_colour: str) -> tuple[int, int, int]:
    """'#1b1c24' as (27, 28, 36)."""
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
