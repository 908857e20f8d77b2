"""Where each thread's cell goes in the grid picture: blocks tiled by blockIdx, threads by threadIdx.

Pure functions of the launch shape (no Qt), so views and tests share them. A 1-D block is folded
into rows of 32 threads, one row a warp; a 1-D grid is folded into rows of blocks so that the
picture stays roughly square. One empty cell separates blocks while blocks are small enough for
it to matter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GridLayout:
    width: int  # image width in cells
    height: int
    tile_w: int  # cells of one block
    tile_h: int
    gap: int
    blocks_per_row: int
    x: np.ndarray  # per thread, for the chosen z layer
    y: np.ndarray

    def block_origin(self, block_linear_xy: int, grid_x: int, grid_y: int) -> tuple[int, int]:
        bx, by = _block_position(block_linear_xy, grid_x, grid_y, self.blocks_per_row)
        return bx * (self.tile_w + self.gap), by * (self.tile_h + self.gap)


def tile_shape(block: tuple[int, int, int]) -> tuple[int, int]:
    bx, by, bz = block
    if by == 1 and bz == 1:
        return min(bx, 32), math.ceil(bx / 32)
    return bx, by * bz


def grid_layout(grid: tuple[int, int, int], block: tuple[int, int, int]) -> GridLayout:
    """Cell coordinates of every thread of one z-layer of blocks (global linear order)."""
    gx, gy, _ = grid
    tile_w, tile_h = tile_shape(block)
    n_xy = gx * gy
    gap = 1 if tile_w * tile_h * n_xy <= 1 << 20 and n_xy > 1 else 0
    blocks_per_row = gx if gy > 1 else max(1, math.ceil(math.sqrt(n_xy * tile_h / max(tile_w, 1))))
    rows = math.ceil(n_xy / blocks_per_row) if gy == 1 else gy
    width = blocks_per_row * (tile_w + gap) - gap
    height = rows * (tile_h + gap) - gap
    per_block = block[0] * block[1] * block[2]
    t = np.arange(per_block)
    tx, ty, tz = t % block[0], (t // block[0]) % block[1], t // (block[0] * block[1])
    if block[1] == 1 and block[2] == 1:
        cx, cy = tx % 32, tx // 32
    else:
        cx, cy = tx, ty + tz * block[1]
    b = np.arange(n_xy)
    bcol, brow = _block_position(b, gx, gy, blocks_per_row)
    # block origin + cell within the block, broadcast straight into int32 (no int64 temporaries)
    x = np.add.outer((bcol * (tile_w + gap)).astype(np.int32), cx.astype(np.int32)).reshape(-1)
    y = np.add.outer((brow * (tile_h + gap)).astype(np.int32), cy.astype(np.int32)).reshape(-1)
    return GridLayout(width, height, tile_w, tile_h, gap, blocks_per_row, x, y)


def _block_position(b, gx: int, gy: int, per_row: int):
    if gy > 1:
        return b % gx, b // gx
    return b % per_row, b // per_row


@dataclass(frozen=True)
class BlockLabel:
    block: int  # linear in the layer: blockIdx.x + blockIdx.y * gridDim.x
    x: float  # where the label's left edge (its right edge when `beside`) and vertical middle go, in cells
    y: float
    text: str
    beside: bool = False  # left of its block, on its row, rather than inside it


def block_labels(layout: GridLayout, grid: tuple[int, int, int], layer: int, visible: tuple[int, int, int, int],
                 line_cells: float, beside: bool = False) -> list[BlockLabel]:  # fmt: skip
    """The labels of the blocks in view (x0, x1, y0, y1: cells, ends exclusive), each inside its own block: at
    its left edge, half a line of text (`line_cells` tall) below its top, and never below its middle, so that
    the top row's labels are on the picture and a thin block's label is not drawn over its neighbour's.
    `beside` (blocks stacked in one column, too thin for a label that leaves their first threads in
    sight, with room left of the grid): each label just left of its block, on the middle of its row."""
    gx, gy, gz = grid
    x0, x1, y0, y1 = visible
    down = layout.tile_h / 2 if beside else min(layout.tile_h, line_cells) / 2
    labels = []
    for b in range(gx * gy):
        ox, oy = layout.block_origin(b, gx, gy)
        if ox + layout.tile_w > x0 and ox < x1 and oy + layout.tile_h > y0 and oy < y1:
            labels.append(BlockLabel(b, float(ox), oy + down, block_name(b, gx, gy, layer, gz), beside))
    return labels


def one_column(layout: GridLayout, grid: tuple[int, int, int]) -> bool:
    """Whether the blocks of a layer are stacked in one column (each its own rows)."""
    gx, gy, _ = grid
    return all(layout.block_origin(b, gx, gy)[0] == 0 for b in range(gx * gy))


def block_name(b: int, gx: int, gy: int, z: int, gz: int) -> str:
    """blockIdx as the launch's grid has axes: block 5, block (1,2), block (1,2,0)."""
    if gz > 1:
        return f"block ({b % gx},{b // gx},{z})"
    return f"block ({b % gx},{b // gx})" if gy > 1 else f"block {b}"


def cell_owner(layout: GridLayout, image_shape: tuple[int, int]) -> np.ndarray:
    """For every cell of the picture, the index (within the layer) of the thread there, or -1."""
    index = np.int32 if len(layout.x) < 2**31 else np.int64  # half the memory for up to 2^31 threads
    owner = np.full(image_shape, -1, index)
    owner[layout.y, layout.x] = np.arange(len(layout.x), dtype=index)
    return owner


MAX_OUTLINE_RECTS = 2048  # beyond this many rectangles a mark is outlined by its bounding box


def outline_rects(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Rectangles (x, y, width, height) in cells that cover exactly the cells (xs, ys): runs along a row
    joined, then equal runs on consecutive rows stacked, so a whole block is one rectangle and a column
    of a matrix is one. Past MAX_OUTLINE_RECTS, the cells' bounding box (a mark is a few items, never
    one per cell)."""
    if len(xs) == 0:
        return np.zeros((0, 4), np.int64)
    xs, ys = np.asarray(xs, np.int64), np.asarray(ys, np.int64)
    order = np.lexsort((xs, ys))
    x, y = xs[order], ys[order]
    keep = np.ones(len(x), bool)
    keep[1:] = (x[1:] != x[:-1]) | (y[1:] != y[:-1])  # the same cell twice counts once
    x, y = x[keep], y[keep]
    start = np.ones(len(x), bool)
    start[1:] = (x[1:] != x[:-1] + 1) | (y[1:] != y[:-1])
    first = np.flatnonzero(start)
    run_x0, run_y = x[first], y[first]
    run_x1 = np.append(x[first[1:] - 1], x[-1]) + 1
    order = np.lexsort((run_y, run_x1, run_x0))
    rx0, rx1, ry = run_x0[order], run_x1[order], run_y[order]
    top = np.ones(len(rx0), bool)
    top[1:] = (rx0[1:] != rx0[:-1]) | (rx1[1:] != rx1[:-1]) | (ry[1:] != ry[:-1] + 1)
    tops = np.flatnonzero(top)
    bottoms = np.append(tops[1:] - 1, len(rx0) - 1)
    rects = np.stack([rx0[tops], ry[tops], rx1[tops] - rx0[tops], ry[bottoms] - ry[tops] + 1], axis=1)
    if len(rects) > MAX_OUTLINE_RECTS:
        return np.array([[x.min(), y.min(), x.max() - x.min() + 1, y.max() - y.min() + 1]], np.int64)
    return rects
