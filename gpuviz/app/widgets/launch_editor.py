"""The launch editor: grid and block in 1-3 D, the counts they give, the backend and the device."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpuviz.backends import simulated_devices
from gpuviz.core.errors import LaunchError
from gpuviz.core.launch import MAX_GRID_DIMS, LaunchConfig, blocks_to_cover
from gpuviz.program.dry_launches import ScriptLaunch

BACKENDS = [("auto", "auto"), ("GPU", "gpu"), ("simulator", "sim")]
GUARD_LABEL = "Check every access (GPU)"  # named by the GPU's fault message (backends/gpu/backend.py)


def _spin(maximum: int, value: int = 1) -> QSpinBox:
    box = QSpinBox()
    box.setRange(1, maximum)
    box.setValue(value)
    box.setKeyboardTracking(True)
    # The range (up to 2**31 - 1) asks for ten digits: a narrow panel may shrink the box below that.
    box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
    box.setMinimumWidth(48)
    return box


@dataclass(frozen=True)
class LaunchChoice:
    config: LaunchConfig | None  # None while the fields are invalid
    overridden: bool  # the fields replace the launch of the script's launch number `index`
    index: int
    problem: str  # why the fields are invalid, in one line ("" when they are not)


def device_label(name: str) -> str:
    """A preset as a student knows it, short enough for a narrow panel: 'T4, 40 SMs'."""
    devices = simulated_devices()  # the default first
    facts = devices[name]
    return f"{facts['short_name']}, {facts['sm_count']} SMs" + (" (default)" if name == next(iter(devices)) else "")


def _device_box() -> QComboBox:
    box = QComboBox()
    for row, (name, device) in enumerate(simulated_devices().items()):
        box.addItem(device_label(name), name)
        facts = (f"{device['name']}: compute capability {device['compute_capability']}, "
                 f"{device['max_threads_per_sm']:,} threads and {device['max_blocks_per_sm']} blocks per SM, "
                 f"{device['shared_per_sm'] // 1024} KiB shared memory per SM")  # fmt: skip
        box.setItemData(row, facts, Qt.ItemDataRole.ToolTipRole)
    box.setToolTip("the GPU the simulator imitates: its SMs and how many blocks each holds")
    # The panel is narrow: the box never widens it, its list is as wide as its longest name.
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(8)
    box.view().setMinimumWidth(box.view().sizeHintForColumn(0) + 24)
    return box


class LaunchEditor(QWidget):
    launch_changed = Signal(object)  # LaunchConfig, or None while the values are invalid
    device_picked = Signal(str)  # a simulator preset (backends/sim/device.py)

    def __init__(self, gpu_unavailable: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = [_spin(MAX_GRID_DIMS[k]) for k in range(3)]
        for box in self.grid:
            box.setToolTip("Blocks in the grid along x, y, z (used when the launch is overridden)")
        self.block = [_spin(4096) for _ in range(3)]  # the limit is checked, with its message, on the spot
        for box in self.block:
            box.setToolTip("Threads per block along x, y, z (used when the launch is overridden)")
        self.launch_picker = QComboBox()
        self.launch_picker.setToolTip("A script with several launches: which one the grid and block apply to")
        self.override = QCheckBox("Override the script's launch")
        self.override.setToolTip(
            "Run the launch picked with the grid and block set here instead of the script's own.\n"
            "Off: the script runs exactly as written; the fields show its launch."
        )
        self.script_launches: list[ScriptLaunch] = []  # read from the text before the first run
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setObjectName("launchMessage")  # in the theme's colour for errors
        self.cover = _spin(2**31 - 1, 1000)
        self.cover.setToolTip("How many elements the grid should cover")
        self.cover_button = QPushButton("Cover N elements")
        self.cover_button.setToolTip("grid.x = ceil(N / block.x)")
        self.backend = QComboBox()
        for label, value in BACKENDS:
            self.backend.addItem(label, value)
        if gpu_unavailable:
            item = self.backend.model().item(1)
            item.setEnabled(False)
            item.setToolTip(gpu_unavailable)
            self.backend.setItemText(1, "GPU (not available)")
        auto = "Where the run goes: auto is the GPU where one is usable, else the simulator"
        self.backend.setToolTip(gpu_unavailable or auto)
        self.gpu_usable = not gpu_unavailable
        self.guard = QCheckBox(GUARD_LABEL)
        self.guard.setToolTip(
            "GPU runs: each access is checked against its array's end before it is made. An index outside an\n"
            "array then stops its thread and the trace shows the line, thread and element, where the unchecked\n"
            "kernel would fault and end the run. Costs about 14% of a recorded run's time (H100).\n"
            "The simulator always checks."
        )
        self.repeat = QSpinBox()
        self.repeat.setRange(1, 200)
        self.repeat.setToolTip("run each launch this many times from the same inputs: the race view shows the outcomes")
        self.device_choice = _device_box()
        self.device = QLabel()
        self.device.setWordWrap(True)
        self._build()
        self.device_choice.activated.connect(lambda _: self.device_picked.emit(self.device_name()))
        for box in self.grid + self.block:
            box.valueChanged.connect(self._on_values_changed)
        self.cover_button.clicked.connect(self._on_cover_clicked)
        self.override.toggled.connect(self._on_values_changed)
        self.backend.currentIndexChanged.connect(self._on_backend_changed)
        self._on_backend_changed()
        self.launch_picker.activated.connect(self._on_script_launch_picked)
        self._on_values_changed()

    def _build(self) -> None:
        form = QFormLayout()
        form.addRow("launch", self.launch_picker)
        form.addRow("grid (x, y, z)", _row(self.grid))
        form.addRow("block (x, y, z)", _row(self.block))
        form.addRow("", self.override)
        form.addRow("backend", self.backend)
        form.addRow("", self.guard)
        form.addRow("device", self.device_choice)
        cover = QHBoxLayout()
        cover.addWidget(self.cover)
        cover.addWidget(self.cover_button)
        form.addRow("N", _wrap(cover))
        form.addRow("repeat", self.repeat)
        self.form = form
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.hint)
        layout.addWidget(self.counts)
        layout.addWidget(self.message)
        layout.addWidget(self.device)
        layout.addStretch(1)

    def set_launch(self, grid: tuple, block: tuple) -> None:
        for box, value in zip(self.grid + self.block, list(grid) + list(block)):
            box.blockSignals(True)
            box.setValue(int(value))
            box.blockSignals(False)
        self._on_values_changed()

    def show_script_launches(self, launches: list[ScriptLaunch], shown: int = 0) -> None:
        """A script opened: its own launches in the picker and the fields; overriding starts off."""
        self.script_launches = launches
        self.override.setChecked(False)
        self.launch_picker.clear()
        self.launch_picker.addItems([launch.label() for launch in launches])
        if launches:
            shown = min(max(0, shown), len(launches) - 1)
            self.launch_picker.setCurrentIndex(shown)
            self._on_script_launch_picked(shown)
        self._on_values_changed()

    def overridden(self) -> bool:
        return self.override.isChecked()

    def _on_script_launch_picked(self, index: int) -> None:
        if 0 <= index < len(self.script_launches):
            self.set_launch(self.script_launches[index].grid, self.script_launches[index].block)

    def set_device(self, text: str) -> None:
        """The device a run will use (or, after a run, used): facts from the backend or the trace."""
        self.device.setText(text)

    def device_name(self) -> str:
        return self.device_choice.currentData()

    def set_device_name(self, name: str) -> None:
        """Show a preset as chosen (from the preferences) without announcing it as picked."""
        self.device_choice.setCurrentIndex(max(0, self.device_choice.findData(name)))

    def offer_device_choice(self, offered: bool) -> None:
        """The simulator imitates a device the student picks; on a real GPU there is nothing to pick."""
        self.form.setRowVisible(self.device_choice, offered)

    def config(self) -> LaunchConfig | None:
        try:
            return LaunchConfig.of(tuple(b.value() for b in self.grid), tuple(b.value() for b in self.block))
        except LaunchError:
            return None

    def backend_name(self) -> str:
        return self.backend.currentData()

    def guarded(self) -> bool:
        """Whether a GPU run checks every access first (RunOptions.guard)."""
        return self.guard.isEnabled() and self.guard.isChecked()

    def _on_backend_changed(self, *_) -> None:
        # The guard is the GPU's: offered where a run can go to a GPU
        self.guard.setEnabled(self.gpu_usable and self.backend_name() != "sim")

    def choice(self) -> LaunchChoice:
        """What the panel asks of the next run: the fields' launch, whether it overrides the script's, which
        of the script's launches it applies to, and why the fields are invalid if they are."""
        return LaunchChoice(self.config(), self.overridden(), max(0, self.launch_picker.currentIndex()),
                            self.message.text())  # fmt: skip

    def _on_values_changed(self, *_) -> None:
        grid, block = tuple(b.value() for b in self.grid), tuple(b.value() for b in self.block)
        self.hint.setText("" if self.overridden() else "The script runs its own launch; these values "
                          "only with <b>Override</b>.")  # fmt: skip
        try:
            config = LaunchConfig.of(grid, block)
        except LaunchError as exc:  # the core's own message, on the spot
            self.message.setText(str(exc))
            self.counts.setText("")
            self.launch_changed.emit(None)
            return
        self.message.setText("")
        self.counts.setText(
            f"<b>{config.threads:,}</b> threads = <b>{config.blocks:,}</b> blocks x "
            f"<b>{config.threads_per_block:,}</b> threads per block ({config.warps_per_block} warps per block)"
        )
        self.launch_changed.emit(config)

    def _on_cover_clicked(self) -> None:
        self.grid[0].setValue(blocks_to_cover(self.cover.value(), self.block[0].value()))


def _row(boxes: list[QSpinBox]) -> QWidget:
    layout = QHBoxLayout()
    layout.setContentsMargins(0, 0, 0, 0)
    for box in boxes:
        layout.addWidget(box)
    return _wrap(layout)


def _wrap(layout) -> QWidget:
    widget = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    widget.setLayout(layout)
    return widget
