"""Play, pause, step and scrub the launch; choose the order threads light up in and the colours."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox, QWidget

from gpuviz.app.state import AppState
from gpuviz.core.colors import MODES
from gpuviz.core.frames import ORDERS

SPEEDS = [("slow", 4), ("normal", 15), ("fast", 40), ("fastest", 60)]


class AnimationBar(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.play_button = QPushButton("Play")
        self.back_button = QPushButton("<")
        self.forward_button = QPushButton(">")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.position = QLabel("0 / 0")
        self.speed = QComboBox()
        for label, fps in SPEEDS:
            self.speed.addItem(label, fps)
        self.speed.setCurrentIndex(1)
        self.order = QComboBox()
        self.order.addItems(list(ORDERS))
        self.colour = QComboBox()
        self.colour.addItems(list(MODES))
        self.layer = QSpinBox()
        self.layer.setToolTip("which z layer of blocks the grid shows (3-D grids)")
        self.layer.setEnabled(False)
        self.timer = QTimer(self)
        layout = QHBoxLayout(self)
        for widget in (self.back_button, self.play_button, self.forward_button):
            layout.addWidget(widget)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.position)
        controls = (("speed", self.speed), ("order", self.order), ("colour by", self.colour), ("layer z", self.layer))
        for label, widget in controls:
            layout.addWidget(QLabel(label))
            layout.addWidget(widget)
        self.play_button.clicked.connect(self.toggle)
        self.back_button.clicked.connect(lambda: self.step(-1))
        self.forward_button.clicked.connect(lambda: self.step(1))
        self.slider.valueChanged.connect(state.set_frame)
        self.speed.currentIndexChanged.connect(self._on_speed_changed)
        self.order.currentTextChanged.connect(state.set_order)
        self.colour.currentTextChanged.connect(state.set_colour_mode)
        self.layer.valueChanged.connect(state.set_layer)
        self.timer.timeout.connect(lambda: self.step(1, wrap=False))
        state.trace_changed.connect(self._on_trace_changed)
        state.frames_changed.connect(self._on_frames_changed)
        state.frame_changed.connect(self._on_frame_changed)
        state.colour_mode_changed.connect(lambda mode: _show(self.colour, mode))
        state.order_changed.connect(lambda order: _show(self.order, order))
        self._on_speed_changed()

    def frames(self) -> int:
        return self.state.plan.count

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

    def step(self, delta: int, wrap: bool = True) -> None:
        last = self.frames() - 1
        if last < 0:
            return
        frame = self.state.frame + delta
        if frame > last or frame < 0:
            if not wrap:
                self.pause()
                return
            frame = max(0, min(frame, last))
        self.state.set_frame(frame)

    def _on_speed_changed(self, *_) -> None:
        self.timer.setInterval(int(1000 / self.speed.currentData()))

    def _on_trace_changed(self, trace) -> None:
        layers = trace.grid[2] if trace is not None else 1
        self.layer.blockSignals(True)
        self.layer.setRange(0, layers - 1)
        self.layer.setValue(self.state.layer)
        self.layer.setEnabled(layers > 1)
        self.layer.blockSignals(False)

    def _on_frames_changed(self, plan) -> None:
        """New frames (trace, order or layer): they start at the last frame; Play replays them."""
        self.pause()
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, plan.count - 1))
        self.slider.blockSignals(False)
        _show(self.order, self.state.order)

    def _on_frame_changed(self, frame: int) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(frame)
        self.slider.blockSignals(False)
        self.position.setText(f"{frame + 1} / {self.frames()}")


def _show(combo: QComboBox, text: str) -> None:
    """Follow the shared state without sending the change back."""
    combo.blockSignals(True)
    combo.setCurrentText(text)
    combo.blockSignals(False)
