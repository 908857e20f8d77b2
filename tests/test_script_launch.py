"""The launch is the script's: read from its text before a run, kept when a field is touched, and
replaced only with the override on (which the status and the output then say)."""

import pytest

from gpuviz.program.dry_launches import dry_launches

SCRIPT = """
TILE = 8
n = 24
grid = ((n + TILE - 1) // TILE, 3)
blur[grid, (TILE, TILE)](a, b)
other[1, 32](a)
later[size, 64](a)          # size is not a constant: not listed
for _ in range(2):
    twice[4, (2, 2)](a)
"""


def test_dry_launches_reads_constant_launches_in_order():
    launches = dry_launches(SCRIPT)
    assert [(launch.kernel, launch.grid, launch.block, launch.line) for launch in launches] == [
        ("blur", (3, 3, 1), (8, 8, 1), 5),
        ("other", (1, 1, 1), (32, 1, 1), 6),
        ("twice", (4, 1, 1), (2, 2, 1), 9),
    ]
    assert launches[0].label() == "blur[(3, 3), (8, 8)] (line 5)"


@pytest.mark.parametrize("text", ["k[0, 32](a)", "k[1](a)", "n = 1\nn = 2\nk[n, 32](a)", "def (:", "k[2 // 0, 1](a)"])
def test_dry_launches_skips_what_is_not_a_constant_launch(text):
    assert dry_launches(text) == []
