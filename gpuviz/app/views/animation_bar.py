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
    QSizePolicy,
    QSlider,
    QSpinBox,
    QWidget,
)

from gpuviz.app.views.base import View
from gpuviz.core.colors import MODES
from gpuviz.core.frames import ORDERS, REPLAY
from gpuviz.core.playback import (
    AUTO,
    DEFAULT_RATE,
    LAUNCH_STEPS,
    RATES,
    auto_step,
    play_seconds,
    rate_label,
    tick_plan,
)
from gpuviz.core.replay import STEPS
from gpuviz.scene.state import AppState

# Steps a second: one for narrating one race, up to fast; the timer advances more than one step per
# tick when the rate passes what it can show. The auto step plays a whole launch in about 20 s.
STEP_CHOICES = (AUTO, *STEPS)


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
        self.speed = _combo([rate_label(rate) for rate in RATES], list(RATES), RATES.index(DEFAULT_RATE))
        self.speed.setToolTip(f"Steps a second while playing (at the auto step a launch is {LAUNCH_STEPS} steps: "
                              f"{LAUNCH_STEPS // DEFAULT_RATE} s at {DEFAULT_RATE} steps/s)")  # fmt: skip
        self.order = _combo(list(ORDERS))
        self.order.setToolTip("replay: the recorded execution, event by event; the others light threads up in an order")
        self.unit = _combo(list(STEP_CHOICES))
        self.unit.setToolTip(f"what one step is in the replay ('auto': 1/{LAUNCH_STEPS} of the launch's events, "
                             "'thread': the selected thread's next access)")  # fmt: skip
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
        self.unit.currentIndexChanged.connect(self._on_speed_changed)
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
        replay, unit = self.state.replay, self.unit.currentText()
        if self.state.order != REPLAY or replay is None or unit == "event":
            return frame + direction
        if unit == AUTO:
            return frame + direction * self.auto_step()
        return replay.next_stop(frame, unit, direction, self.state.selected)

    def auto_step(self) -> int:
        """Events in one step at the auto step: the launch's size over LAUNCH_STEPS."""
        return auto_step(max(0, self.frames() - 1))

    def _at_auto_step(self) -> bool:
        return self.state.order == REPLAY and self.unit.currentText() == AUTO

    def _on_tick(self) -> None:
        """Advance as far as the speed asks for one timer tick."""
        steps, _ = self._tick_plan()
        last, frame = self.frames() - 1, self.state.frame
        if frame >= last:
            self.pause()
            return
        for _ in range(steps):
            frame = self._next(frame, 1)
        self.state.set_frame(min(frame, last))

    def _tick_plan(self) -> tuple[int, int]:
        """(steps a tick, interval in ms) at the speed chosen; a short launch at the auto step ticks slower."""
        events = max(0, self.frames() - 1)
        steps = -(-events // self.auto_step()) if self._at_auto_step() else None
        return tick_plan(self.speed.currentData(), steps)

    def play_seconds(self) -> float:
        """How long Play takes from the first frame to the last at the step and speed chosen (the auto
        or event step; the others depend on the trace's units): ticks x interval, no clock read."""
        step = None if self._at_auto_step() else 1
        return play_seconds(max(0, self.frames() - 1), self.speed.currentData(), step)

    def _on_speed_changed(self, *_) -> None:
        self.timer.setInterval(self._tick_plan()[1])

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
        self.slider.setSingleStep(self.auto_step() if self.state.order == REPLAY else 1)
        self.slider.setPageStep(max(1, plan.count // 20))  # a click in the trough: a 20th of the launch
        self.slider.blockSignals(False)
        _show(self.order, self.state.order)
        self.unit.setEnabled(self.state.order == REPLAY)
        self._on_speed_changed()

    def _on_frame_changed(self, frame: int) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(frame)
        self.slider.blockSignals(False)
        if self.state.trace is None or not self.frames():
            self.position.setText("0 / 0")  # nothing to step through
        else:
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
        return f"frame {frame + 1:,} of {plan.count:,} ({self.state.order}): {lit:,} threads of this layer started"


def _combo(texts: list[str], data: list | None = None, current: int = 0) -> QComboBox:
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # names are never cut short
    combo.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    for text, value in zip(texts, data or texts):
        combo.addItem(text, value)
    combo.setCurrentIndex(current)
    return combo


def _show(combo: QComboBox, text: str) -> None:
    """Follow the shared state without sending the change back."""
    combo.blockSignals(True)
    combo.setCurrentText(text)
    combo.blockSignals(False)
