"""Drawing that waits while its view is a tab behind another: such a view must not delay a launch's
first frame (the data view of a 16.8-million-element array takes a second to work out).

A view is on screen unless the window says otherwise (`set_on_screen`, called when its tab goes
behind or comes to the front), so a view drawn on its own (a picture, a test) draws at once.
"""

from __future__ import annotations

from collections.abc import Callable


class WhenShown:
    """Call it to draw: now while the view is on screen, else when it next comes to the front."""

    def __init__(self, draw: Callable[[], None]) -> None:
        self._draw = draw
        self.on_screen = True
        self.pending = False

    def __call__(self) -> None:
        self.pending = not self.on_screen
        if self.on_screen:
            self._draw()

    def set_on_screen(self, on_screen: bool) -> None:
        self.on_screen = on_screen
        if on_screen and self.pending:
            self.pending = False
            self._draw()
