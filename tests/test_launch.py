import pytest

from gpuviz.core.errors import LaunchError
from gpuviz.core.launch import LaunchConfig, as_dim3, blocks_to_cover


@pytest.mark.parametrize(
    "value, expected",
    [(4, (4, 1, 1)), ((4,), (4, 1, 1)), ((2, 3), (2, 3, 1)), ((2, 3, 4), (2, 3, 4)), ([5, 6], (5, 6, 1))],
)
def test_dims_accept_what_numba_accepts(value, expected):
    assert as_dim3(value, "grid") == expected


@pytest.mark.parametrize(
    "grid, block, message",
    [
        (3, 2048, "block has 2048 threads; at most 1024 threads per block are allowed"),
        (3, (32, 32, 2), "block has 2048 threads"),
        (0, 32, "must be positive"),
        (3, 2.5, "must be a whole number"),
        ((1, 2, 3, 4), 32, "4 dimensions"),
        (3, (1, 1, 65), "block.z is 65"),
        ((1, 70000), 32, "grid.y is 70000"),
        (3, "32", "must be a whole number"),
        (1000 / 256, 256, "grid 3.90625: every dimension must be a whole number, not 3.90625 (`/` gives a float"),
    ],
)
def test_invalid_launches_are_refused_in_one_line(grid, block, message):
    with pytest.raises(LaunchError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        LaunchConfig.of(grid, block)
    assert "\n" not in str(info.value)


def test_counts():
    config = LaunchConfig.of((2, 3), (16, 4))
    assert (config.blocks, config.threads_per_block, config.threads, config.warps_per_block) == (6, 64, 384, 2)
    assert LaunchConfig.of(1, 33).warps_per_block == 2


def test_blocks_to_cover():
    assert blocks_to_cover(2**24 + 11, 256) == 65537
    assert blocks_to_cover(1024, 64) == 16
    with pytest.raises(LaunchError):
        blocks_to_cover(0, 64)
