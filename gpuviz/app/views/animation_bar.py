"""Play, pause, step and scrub the launch; in the replay, step by event, cycle, barrier, wave or the
selected thread's next access; choose the order threads light up in and the colours. A caption says
what the frame shows."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QWidget,
)

from gpuviz.app.views.base import View
from gpuviz.core.colors import MODES
from gpuviz.core.frames import ORDERS, REPLAY
from gpuviz.core.replay import STEPS
from gpuviz.scene.state import AppState

# Frames a second: a few for narrating one race, up to fast; the replay advances more than one
# event per tick when the rate passes what a timer can show.
SPEEDS = [("very slow", 1), ("slow", 4), ("normal", 15), ("fast", 60), ("very fast", 600), ("fastest", 6000)]
MAX_TICKS_PER_SECOND = 30


class AnimationBar(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.play_button = QPushButton("Play")
        self.play_button.setToolTip("play or pause (Space)")
        self.back_button = QPushButton("<")
        self.back_button.setToolTip("one step back (Left)")
        self.forward_button = QPushButton(">")
        self.forward_button.setToolTip("one step forward (Right)")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("The step of the animation shown (Left / Right)")
        self.position = QLabel("0 / 0")
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setObjectName("frameCaption")
        self.speed = _combo([label for label, _ in SPEEDS], [rate for _, rate in SPEEDS], 2)
        self.speed.setToolTip("Steps per second while playing")
        self.order = _combo(list(ORDERS))
        self.order.setToolTip("replay: the recorded execution, event by event; the others light threads up in an order")
        self.unit = _combo(list(STEPS))
        self.unit.setToolTip("what one step is in the replay ('thread': the selected thread's next access)")
        self.colour = _combo(list(MODES))
        self.colour.setToolTip("What a thread's colour means in the grid")
        self.layer = QSpinBox()
        self.layer.setToolTip("which z layer of blocks the grid shows (3-D grids)")
        self.layer.setEnabled(False)
        self.timer = QTimer(self)
        self._lay_out()
        self.play_button.clicked.connect(self.toggle)
        self.back_button.clicked.connect(lambda: self.step(-1))
        self.forward_button.clicked.connect(lambda: self.step(1))
        self.slider.valueChanged.connect(state.set_frame)
        self.speed.currentIndexChanged.connect(self._on_speed_changed)
        self.order.currentTextChanged.connect(state.set_order)
        self.colour.currentTextChanged.connect(state.set_colour_mode)
        self.layer.valueChanged.connect(state.set_layer)
        self.timer.timeout.connect(self._on_tick)
        state.trace_changed.connect(self._on_trace_changed)
        state.frames_changed.connect(self._on_frames_changed)
        state.frame_changed.connect(self._on_frame_changed)
        state.colour_mode_changed.connect(lambda mode: _show(self.colour, mode))
        state.order_changed.connect(lambda order: _show(self.order, order))
        state.layer_changed.connect(self._show_layer)  # set elsewhere too: a lesson's evidence picks a layer
        self._on_speed_changed()

    def _lay_out(self) -> None:
        self.grid = QGridLayout(self)
        row = QHBoxLayout()
        for widget in (self.back_button, self.play_button, self.forward_button):
            row.addWidget(widget)
        row.addWidget(self.slider, 1)
        row.addWidget(self.position)
        self.grid.addLayout(row, 0, 0)
        self.controls = QWidget()  # on the stage it joins the transport row, with only step and speed
        controls = QHBoxLayout(self.controls)
        controls.setContentsMargins(0, 0, 0, 0)
        self.stage_hidden: list[QWidget] = []  # what the stage's one row leaves out
        for label, widget in (("order", self.order), ("step", self.unit), ("speed", self.speed),
                              ("colour by", self.colour), ("layer z", self.layer)):  # fmt: skip
            name = QLabel(label)
            controls.addWidget(name)
            controls.addWidget(widget)
            self.stage_hidden += [name] if widget in (self.unit, self.speed) else [name, widget]
        controls.addStretch(1)
        self.grid.addWidget(self.controls, 1, 0)
        self.grid.addWidget(self.caption, 2, 0)

    def set_compact(self, compact: bool) -> None:
        """The stage's transport row: one line of Play, steps, the slider, the step and the speed (their
        names in their tooltips), the slider taking the room."""
        self.grid.removeWidget(self.controls)
        self.grid.addWidget(self.controls, *((0, 1) if compact else (1, 0)))
        self.grid.setColumnStretch(0, 1 if compact else 0)
        self.grid.setContentsMargins(*((4, 2, 4, 2) if compact else (11, 11, 11, 11)))
        for widget in (*self.stage_hidden, self.caption):
            widget.setVisible(not compact)

    def toggle(self) -> None:
        if self.timer.isActive():
            self.pause()
        elif self.frames() > 0:
            if self.state.frame >= self.frames() - 1:
                self.state.set_frame(0)
            self.timer.start()
            self.play_button.setText("Pause")

    def pause(self) -> None:
        self.timer.stop()
        self.play_button.setText("Play")

    def step(self, direction: int, wrap: bool = True) -> None:
        """One step: a frame, or in the replay one unit (event, cycle, barrier, wave, thread)."""
        last = self.frames() - 1
        if last < 0:
            return
        frame = self._next(self.state.frame, direction)
        if frame == self.state.frame and not wrap:
            self.pause()
            return
        self.state.set_frame(max(0, min(frame, last)))

    def _next(self, frame: int, direction: int) -> int:
        replay = self.state.replay
        if self.state.order != REPLAY or replay is None or self.unit.currentText() == "event":
            return frame + direction
        return replay.next_stop(frame, self.unit.currentText(), direction, self.state.selected)

    def _on_tick(self) -> None:
        """Advance as far as the speed asks for one timer tick."""
        steps = max(1, round(self.speed.currentData() / MAX_TICKS_PER_SECOND))
        last, frame = self.frames() - 1, self.state.frame
        if frame >= last:
            self.pause()
            return
        for _ in range(steps):
            frame = self._next(frame, 1)
        self.state.set_frame(min(frame, last))

    def _on_speed_changed(self, *_) -> None:
        self.timer.setInterval(int(1000 / min(self.speed.currentData(), MAX_TICKS_PER_SECOND)))

    def _on_trace_changed(self, trace) -> None:
        layers = trace.grid[2] if trace is not None else 1
        self.layer.blockSignals(True)
        self.layer.setRange(0, layers - 1)
        self.layer.setValue(self.state.layer)
        self.layer.setEnabled(layers > 1)
        self.layer.blockSignals(False)

    def _show_layer(self, layer: int) -> None:
        self.layer.blockSignals(True)
        self.layer.setValue(layer)
        self.layer.blockSignals(False)

    def _on_frames_changed(self, plan) -> None:
        """New frames (trace, order or layer): they start at the last frame; Play replays them."""
        self.pause()
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, plan.count - 1))
        self.slider.blockSignals(False)
        _show(self.order, self.state.order)
        self.unit.setEnabled(self.state.order == REPLAY)

    def _on_frame_changed(self, frame: int) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(frame)
        self.slider.blockSignals(False)
        self.position.setText(f"{frame + 1:,} / {self.frames():,}" if self.state.order != REPLAY
                              else f"event {frame:,} / {self.frames() - 1:,}")  # fmt: skip
        self.caption.setText(self._caption(frame))

    def _caption(self, frame: int) -> str:
        if self.state.trace is None:
            return ""
        if self.state.order == REPLAY and self.state.replay is not None:
            return self.state.replay.caption(frame)
        plan = self.state.plan
        lit = int(plan.limits[frame]) if 0 <= frame < plan.count else 0
        return f"frame {frame + 1} of {plan.count} ({self.state.order}): {lit:,} threads of this layer started"


def _combo(texts: list[str], data: list | None = None, current: int = 0) -> QComboBox:
    combo = QComboBox()
    for text, value in zip(texts, data or texts):
        combo.addItem(text, value)
    combo.setCurrentIndex(current)
    return combo


def _show(combo: QComboBox, text: str) -> None:
    """Follow the shared state without sending the change back."""
    combo.blockSignals(True)
    combo.setCurrentText(text)
    combo.blockSignals(False)
