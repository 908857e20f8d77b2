"""The app's shared state: the current trace, the selected thread, the frame, the colour mode.

Views read it and subscribe to its signals; they never call each other.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from gpuviz.core.colors import MODES
from gpuviz.core.frames import ORDERS
from gpuviz.core.trace import Trace


class AppState(QObject):
    trace_changed = Signal(object)  # Trace or None
    selection_changed = Signal(int)  # global thread id, -1 for none
    frame_changed = Signal(int)
    colour_mode_changed = Signal(str)
    order_changed = Signal(str)
    layer_changed = Signal(int)
    entry_changed = Signal(object)  # CatalogEntry or None: the lesson or example picked
    element_changed = Signal(object)  # (array id, element, block or None) or None
    line_changed = Signal(int)  # a source line, 0 for none

    def __init__(self) -> None:
        super().__init__()
        self.trace: Trace | None = None
        self.selected = -1
        self.frame = 0
        self.colour_mode = MODES[0]
        self.order = ORDERS[0]
        self.layer = 0
        self.entry = None
        self.element = None
        self.line = 0
        self.launches: list[Trace] = []  # every launch of the current run, for comparisons

    def set_entry(self, entry) -> None:
        self.entry = entry
        self.entry_changed.emit(entry)

    def set_trace(self, trace: Trace | None) -> None:
        self.trace = trace
        self.selected = -1
        self.layer = 0
        self.element = None
        self.line = 0
        self.trace_changed.emit(trace)
        self.selection_changed.emit(-1)

    def select_element(self, element) -> None:
        self.element = element
        self.element_changed.emit(element)

    def select_line(self, line: int) -> None:
        if line != self.line:
            self.line = line
            self.line_changed.emit(line)

    def select(self, gid: int) -> None:
        if gid != self.selected:
            self.selected = gid
            self.selection_changed.emit(gid)

    def set_frame(self, frame: int) -> None:
        if frame != self.frame:
            self.frame = frame
            self.frame_changed.emit(frame)

    def set_colour_mode(self, mode: str) -> None:
        if mode != self.colour_mode:
            self.colour_mode = mode
            self.colour_mode_changed.emit(mode)

    def set_order(self, order: str) -> None:
        if order != self.order:
            self.order = order
            self.order_changed.emit(order)

    def set_layer(self, layer: int) -> None:
        if layer != self.layer:
            self.layer = layer
            self.layer_changed.emit(layer)
