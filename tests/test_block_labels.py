"""Block labels go inside their own blocks (core/layout.py: block_labels): the top row's are on the picture,
and block 0 is called block 0. Pure (tests/test_look.py draws them in pictures of a few sizes)."""

import pytest

from gpuviz.core.layout import block_labels, grid_layout

SHAPES = [((6, 1, 1), (64, 1, 1)), ((3, 3, 1), (8, 8, 1)), ((40, 1, 1), (1024, 1, 1)), ((4, 2, 3), (4, 4, 2)),
          ((1, 1, 1), (32, 1, 1))]  # fmt: skip


def tile_of(layout, grid, block: int) -> tuple[float, float, float, float]:
    x, y = layout.block_origin(block, grid[0], grid[1])
    return x, y, x + layout.tile_w, y + layout.tile_h


@pytest.mark.parametrize("grid, block", SHAPES)
@pytest.mark.parametrize("line_cells", [0.5, 3.0, 100.0])  # a line of text: thin, middling, taller than a block
def test_every_label_is_inside_its_own_block_and_names_it(grid, block, line_cells):
    layout = grid_layout(grid, block)
    everything = (0, layout.width, 0, layout.height)
    labels = block_labels(layout, grid, 0, everything, line_cells)
    assert sorted(label.block for label in labels) == list(range(grid[0] * grid[1]))  # every row, the top one too
    for label in labels:
        x0, y0, x1, y1 = tile_of(layout, grid, label.block)
        assert x0 <= label.x < x1 and y0 < label.y <= (y0 + y1) / 2, label  # inside, never below the middle
        bx, by = label.block % grid[0], label.block // grid[0]
        assert label.text in (f"block {label.block}", f"block ({bx},{by})", f"block ({bx},{by},0)")
    zero = next(label for label in labels if label.block == 0)
    assert zero.text in ("block 0", "block (0,0)", "block (0,0,0)") and (zero.x, zero.y) <= (1.0, layout.tile_h)
    assert min(label.y for label in labels) > 0  # the top row is on the picture, not above it


def test_only_blocks_in_view_are_labelled_and_the_layer_is_named():
    grid, block = (8, 8, 2), (16, 16, 1)
    layout = grid_layout(grid, block)
    window = (0, layout.tile_w + 2, 0, layout.tile_h + 2)  # block (0,0), the gap and a cell of each neighbour
    labels = block_labels(layout, grid, 1, window, 2.0)
    assert {label.text for label in labels} == {"block (0,0,1)", "block (1,0,1)", "block (0,1,1)", "block (1,1,1)"}


def test_beside_labels_sit_left_of_their_one_column_blocks_on_their_own_rows():
    from gpuviz.core.layout import one_column

    grid, block = (4, 1, 1), (64, 1, 1)  # thin blocks stacked in one column: inside, a label covers thread 0
    layout = grid_layout(grid, block)
    assert one_column(layout, grid) and not one_column(grid_layout((3, 3, 1), (8, 8, 1)), (3, 3, 1))
    labels = block_labels(layout, grid, 0, (0, layout.width, 0, layout.height), 3.0, beside=True)
    assert [label.text for label in labels] == [f"block {b}" for b in range(4)]
    for label in labels:
        x0, y0, x1, y1 = tile_of(layout, grid, label.block)
        assert label.beside and label.x == x0 == 0 and label.y == (y0 + y1) / 2  # right edge at the block's left
