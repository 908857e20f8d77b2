"""What every view of the table is: a QWidget built on the app state that is also a View.

A View subscribes to the state's signals and never calls another view. The window, pictures and tests
rely on these methods and nothing else; the defaults do nothing, so a view says only what it has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuviz.core.colors import Legend
from gpuviz.scene.state import AppState

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


class View:
    """Mixed into a Qt widget class (`class GridView(QWidget, View)`): Qt allows one Qt base, so the
    contract is a plain class with no state of its own."""

    state: AppState

    def set_on_screen(self, on_screen: bool) -> None:
        """The window says whether the view can be seen (its tab or dock in front): a view whose drawing
        is costly waits until it can."""

    def legend_items(self) -> Legend:
        """What the view's colours mean, for a picture's legend; none by default."""
        return []

    def legend_in_drawing(self) -> Legend:
        """The entries of `legend_items()` the drawing shows itself (a call-out over a lesson's marks): a
        picture's legend leaves them out rather than say them twice. None by default."""
        return []

    def drawing(self) -> QWidget:
        """What a picture of the view shows: its plot or drawing and the words that belong to it, without
        the controls that change it (combo boxes, spin boxes) or its title lines (a picture says the
        `headline()` in its own). The view itself by default: a view with no controls."""
        return self

    def frames(self) -> int:
        """How many frames the animation the view steps through has."""
        return self.state.plan.count

    def busy(self) -> bool:
        """Whether the view has drawing it is still waiting to do (behind another tab)."""
        return False

    def set_compact(self, compact: bool) -> None:
        """On the stage (presentation mode) a view gives its own title lines to the caption over the picture
        and keeps only the picture and its controls."""

    def headline(self) -> str:
        """The view's title line (rich text) for the caption over the picture on the stage; "" for none."""
        return ""
