"""Every word the app draws on a colour keeps WCAG AA's contrast (4.5:1) in both themes: the theme table
(core/theme_colours.py) lists each pair of text and background, and the window and pictures read it."""

import pytest

from gpuviz.core.theme_colours import (
    AA_CONTRAST,
    BADGES,
    THEMES,
    blend,
    contrast,
    relative_luminance,
    rgb,
    text_pairs,
)


def test_the_contrast_formula_gives_wcags_own_figures():
    """WCAG 2's end points and a pair its examples give (#777777 on white is just under 4.5)."""
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#123456", "#123456") == pytest.approx(1.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#ffffff", "#777777") == contrast("#777777", "#ffffff")  # the order does not matter
    assert relative_luminance("#ff0000") == pytest.approx(0.2126)  # the red channel's weight


def test_a_translucent_colour_is_blended_over_what_is_under_it():
    assert blend((0, 0, 0, 255), "#ffffff") == "#000000"
    assert blend((0, 0, 0, 0), "#ffffff") == "#ffffff"
    assert rgb(blend((255, 255, 255, 128), "#000000"))[0] == 128


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_text_pair_of_a_theme_reads_at_aa_contrast(theme):
    pairs = text_pairs(theme)
    low = [f"{p.where}: {p.text} on {p.background} = {p.contrast:.2f}" for p in pairs if p.contrast < AA_CONTRAST]
    assert low == []


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_the_pairs_cover_every_colour_of_the_theme_that_words_are_drawn_with(theme):
    """A colour added to the table without a pair would escape the check."""
    colours = THEMES[theme]
    pairs = text_pairs(theme)
    shown = {p.text for p in pairs} | {p.background for p in pairs}
    words = {colours.text, colours.muted, colours.link, colours.bad}
    grounds = {colours.background, colours.button, colours.field, colours.plot, colours.picture}
    assert words | grounds <= shown
    assert all(b.text in shown and b.background in shown for b in BADGES.values())


def test_the_check_finds_a_pale_link_on_white():
    """The light theme's old link colour (a pale blue on white) is what the check is there to catch."""
    assert contrast("#78bee6", "#ffffff") < AA_CONTRAST
