"""The categorical palettes (core/colors.py) tell blocks, warps and SMs apart for colour-blind eyes too, and
the high-contrast one by lightness alone, which is what a washed-out projector keeps. Pure: no Qt.

Colour blindness is simulated with Machado, Oliveira and Fernandes' matrices (2009, severity 1) on linear
sRGB; distances are CIE76 differences in CIELAB."""

import itertools

import numpy as np
import pytest

from gpuviz.core.colors import DEFAULT_PALETTE, GRID_COLOURS, HIGH_CONTRAST, PALETTES, RACE, coloring, palette

SIMULATIONS = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}
APART = 12.0  # CIE76: colours this far apart are told apart at a glance
LIGHTER = 15.0  # L*: neighbours of the high-contrast palette differ at least this much in lightness
# the palette before Okabe-Ito (Sasha Trubetskoy's 12): the check below must find it wanting
OLD = [(230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 240, 240),
       (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (220, 190, 255)]  # fmt: skip


def linear(colours) -> np.ndarray:
    c = np.asarray(colours, float) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(linear_rgb: np.ndarray) -> np.ndarray:
    to_xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = linear_rgb @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def seen(colours, simulation: str | None) -> np.ndarray:
    """CIELAB of colours as a viewer with that colour blindness (None: none) sees them."""
    light = linear(colours)
    if simulation:
        light = np.clip(light @ np.array(SIMULATIONS[simulation]).T, 0, 1)
    return lab(light)


def closest(colours, simulation: str | None) -> float:
    points = seen(colours, simulation)
    return min(float(np.linalg.norm(a - b)) for a, b in itertools.combinations(points, 2))


@pytest.mark.parametrize("name", sorted(PALETTES))
@pytest.mark.parametrize("simulation", [None, *SIMULATIONS])
def test_every_palette_keeps_its_colours_apart_for_colour_blind_eyes(name, simulation):
    assert closest(palette(name), simulation) >= APART


def test_the_check_finds_the_old_palette_wanting():
    assert min(closest(OLD, s) for s in SIMULATIONS) < APART


def test_the_default_is_okabe_and_itos_palette():
    okabe_ito = [(230, 159, 0), (86, 180, 233), (0, 158, 115), (240, 228, 66), (0, 114, 178), (213, 94, 0)]
    okabe_ito = {*okabe_ito, (204, 121, 167)}  # Okabe and Ito 2008, less black
    assert {tuple(int(c) for c in colour) for colour in palette(DEFAULT_PALETTE)} == okabe_ito


def test_neighbours_in_the_high_contrast_palette_differ_in_lightness():
    """Block k and block k+1 (and the last and the first, where colours repeat) differ in L*."""
    lightness = seen(HIGH_CONTRAST, None)[:, 0]
    steps = np.abs(lightness - np.roll(lightness, -1))
    assert steps.min() >= LIGHTER
    assert np.abs(np.diff(seen(palette(DEFAULT_PALETTE), None)[:, 0])).min() < LIGHTER  # why it is a choice


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_palette_colours_stay_apart_from_the_grids_own_colours_and_the_race_colour(name):
    """Not run yet, nothing written and the race colour mean something else: no block may look like them."""
    special = [*GRID_COLOURS.values(), RACE]
    for colour in palette(name):
        for other in special:
            assert np.linalg.norm(seen([colour], None)[0] - seen([other], None)[0]) >= APART, (colour, other)


def test_coloring_uses_the_palette_asked_for(tmp_path):
    import gpuviz

    kernel = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = i\n"
    trace = gpuviz.trace(kernel, backend="sim")[9, 32](np.zeros(288))
    for name in PALETTES:
        colours = coloring(trace, "block", palette_name=name)
        count = len(palette(name))
        assert np.array_equal(colours.lut[1 : count + 1, :3], palette(name))
        assert [rgb for rgb, _ in colours.legend] == [tuple(int(c) for c in p) for p in palette(name)]
        assert colours.codes[32 * count] == 1  # block `count` takes the first colour again
        assert f"every {count}th" in colours.legend[0][1]
    with pytest.raises(ValueError, match="unknown palette"):
        palette("rainbow")
