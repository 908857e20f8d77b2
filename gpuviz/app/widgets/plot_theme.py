"""Plots in a theme: their background, their axes, and the words drawn over them (row and column numbers,
lane and bank names) in the theme's text colours, so that words on a plot keep their contrast when the theme
changes. The window restyles its plots (window/appearance.py), a slide its own (pictures/picture.py)."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import pyqtgraph as pg

from gpuviz.core.theme_colours import THEMES, ThemeColours, rgb

DEFAULT = "dark"  # a plot nobody has restyled yet is drawn dark
_theme_of: WeakKeyDictionary[object, str] = WeakKeyDictionary()  # a plot's scene -> its theme's name
_role_of: WeakKeyDictionary[pg.TextItem, str] = WeakKeyDictionary()  # words that follow the theme -> "text"/"muted"


def colours_of(item: pg.GraphicsObject) -> ThemeColours:
    """The theme of the plot an item is drawn on (the default where it is on none yet)."""
    scene = item.scene()
    return THEMES[_theme_of.get(scene, DEFAULT) if scene is not None else DEFAULT]


def follow(item: pg.TextItem, role: str = "text") -> pg.TextItem:
    """Words on a plot in its theme's `role` colour ("text" or "muted"), now and after each restyle."""
    _role_of[item] = role
    item.setColor(_colour(colours_of(item), role))
    return item


def restyle(graphics: pg.GraphicsView, theme: str) -> None:
    """A plot's background, axes and following words in a theme."""
    colours = THEMES[theme]
    _theme_of[graphics.scene()] = theme
    graphics.setBackground(rgb(colours.plot))
    for item in graphics.scene().items():
        if isinstance(item, pg.AxisItem):
            item.setTextPen(rgb(colours.text))
            item.setPen(rgb(colours.muted))
        elif isinstance(item, pg.TextItem) and item in _role_of:
            item.setColor(_colour(colours, _role_of[item]))


def _colour(colours: ThemeColours, role: str) -> tuple[int, int, int]:
    return rgb(colours.muted if role == "muted" else colours.text)
