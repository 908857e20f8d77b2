"""Preferences, kept in the settings: theme, font scale, the colours that tell blocks apart, the default
backend and simulated device, keeping traces after the app closes, a run's time limit, the memory budget of
a run and a teacher's folder of lessons."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from gpuviz.app.widgets.launch_editor import BACKENDS
from gpuviz.app.window import appearance
from gpuviz.app.window.settings import remember, value
from gpuviz.app.window.view_controls import THEMES
from gpuviz.backends import simulated_devices
from gpuviz.core.budget import default_memory_budget
from gpuviz.core.colors import DEFAULT_PALETTE, PALETTES
from gpuviz.core.options import RunOptions

MIB = 1 << 20


@dataclass(frozen=True)
class Preferences:
    theme: str = "dark"
    font_scale: float = 1.0
    palette: str = DEFAULT_PALETTE  # blocks, warps and SMs: colour-blind safe, or high contrast for a projector
    backend: str = "auto"
    device: str = "h200"
    keep_traces: bool = False  # traces of each run stay in the user's data folder after closing
    run_timeout: int = 0  # seconds; 0: no limit
    memory_budget_mib: int = default_memory_budget() // MIB
    lessons_folder: str = ""  # a teacher's lessons, shown after the built-in ones ("" for none)

    @classmethod
    def load(cls) -> Preferences:
        loaded = cls(**{f.name: value(f.name, f.default, type(f.default)) for f in fields(cls)})
        return loaded if loaded.palette in PALETTES else replace(loaded, palette=DEFAULT_PALETTE)

    def save(self) -> None:
        remember(**{f.name: getattr(self, f.name) for f in fields(self)})

    def run_options(self, options: RunOptions) -> RunOptions:
        return replace(options, device=self.device, memory_budget=self.memory_budget_mib * MIB)

    def timeout(self) -> float | None:
        return float(self.run_timeout) if self.run_timeout > 0 else None


class PreferencesDialog(QDialog):
    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.theme = _combo([(name, name) for name in THEMES], preferences.theme, "light or dark window")
        self.font_scale = QDoubleSpinBox()
        self.font_scale.setRange(*appearance.SCALES)
        self.font_scale.setSingleStep(0.1)
        self.font_scale.setValue(preferences.font_scale)
        self.font_scale.setToolTip("text size of every view (also Ctrl+= / Ctrl+- / Ctrl+0)")
        self.palette = _combo([(name, name) for name in PALETTES], preferences.palette,
                              "the colours of blocks, warps and SMs: colour-blind safe (Okabe-Ito), or high "
                              "contrast (light and dark in turn) for a washed-out projector")  # fmt: skip
        self.backend = _combo(BACKENDS, preferences.backend, "the backend a run starts with")
        devices = [(name, name) for name in simulated_devices()]
        self.device = _combo(devices, preferences.device, "the GPU the simulator imitates")
        self.keep_traces = QCheckBox("keep the traces of every run after closing")
        self.keep_traces.setChecked(preferences.keep_traces)
        self.keep_traces.setToolTip("traces are written to the gpuviz folder of your data directory")
        self.run_timeout = _spin(0, 3600, preferences.run_timeout, "a longer run stops with an error (0: no limit)")
        self.budget = _spin(1, 1 << 20, preferences.memory_budget_mib, "memory a run's trace may use, in MiB")
        self.lessons_folder = QLineEdit(preferences.lessons_folder)
        self.lessons_folder.setPlaceholderText("a folder of NN-name.py lessons with their .md texts")
        self.lessons_folder.setToolTip("a teacher's lessons, shown in the Catalog after the built-in ones")
        form = QFormLayout(self)
        rows = [("theme", self.theme), ("font scale", self.font_scale), ("colours", self.palette),
                ("backend", self.backend), ("simulated device", self.device), ("traces", self.keep_traces),
                ("run time limit (s)", self.run_timeout), ("memory budget (MiB)", self.budget),
                ("lessons folder", self.lessons_folder)]  # fmt: skip
        for label, widget in rows:
            form.addRow(label, widget)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def chosen(self) -> Preferences:
        return Preferences(self.theme.currentData(), round(self.font_scale.value(), 3), self.palette.currentData(),
                           self.backend.currentData(), self.device.currentData(), self.keep_traces.isChecked(),
                           self.run_timeout.value(), self.budget.value(),
                           self.lessons_folder.text().strip())  # fmt: skip


def _combo(items: list[tuple[str, str]], current: str, tip: str) -> QComboBox:
    combo = QComboBox()
    for label, data in items:
        combo.addItem(label, data)
    combo.setCurrentIndex(max(0, combo.findData(current)))
    combo.setToolTip(tip)
    return combo


def _spin(low: int, high: int, current: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(current)
    box.setToolTip(tip)
    return box
