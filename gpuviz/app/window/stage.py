"""The stage: presentation mode (F5) for a projector, where the picture is the window.

On the stage the view in front fills the window: the menus, toolbar, tab bar, status bar and panels go away,
the picture views that live in panels (the Element story, the Races) join the others, each view hands its
title lines to a caption over the picture's bottom edge (two lines, C or a click for all of it; an error is said
there too, in a red badge), and one row below the picture holds which view is in front, Run and the animation's
transport. While a run is going the transport gives its place to Stop and a bar of the launch's blocks, and the
caption's first line says what the run is doing (the fast path compiling, then running), so the class sees the
run move. The lesson text comes and goes with L. Number keys bring the views to the front; a text box with
the focus keeps its digits (Qt gives typed keys to the text box before any one-key shortcut). Leaving
restores the everyday layout as it was.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QToolBar,
    QWidget,
)

from gpuviz.app.control.run_feedback import Face
from gpuviz.app.views.base import View
from gpuviz.app.views.table import BY_NAME
from gpuviz.app.widgets.caption_overlay import CaptionOverlay
from gpuviz.core.display import code_as_html
from gpuviz.core.theme_colours import badge_html

KEYS = (("1", "grid"), ("2", "data"), ("3", "timeline"), ("4", "story"), ("5", "memory"), ("6", "races"),
        ("7", "compare"), ("8", "streams"))  # fmt: skip
DOCKED_PICTURES = ("story", "races")  # picture views that live in panels; on the stage they are tabs
LESSON_SHARE = 0.4  # of the window's width, while the lesson text is shown on the stage


class StageBar(QWidget):
    """The stage's one row under the picture: the view in front (with its number key), Run, and the
    animation's transport (the Animation view, lent by its panel while the stage is up); while a run is
    going, Stop and the run's bar instead of the transport."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("stageBar")
        self.picker = QComboBox()
        for key, name in KEYS:
            self.picker.addItem(f"{key} {BY_NAME[name].title}", name)
        self.picker.setToolTip("The view in front (number keys 1-7 pick one too)")
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(max(len(self.picker.itemText(i)) for i in range(self.picker.count())))
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Run the script and trace its launches (Ctrl+R)")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip("Stop the running script at once")
        self.progress = QProgressBar()
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(4, 2, 4, 2)
        self.row.addWidget(self.picker)
        self.row.addWidget(self.run_button)
        self.row.addWidget(self.stop_button)
        self.row.addWidget(self.progress, 1)
        for widget in (self.stop_button, self.progress):
            widget.hide()
        self.hide()


class Stage:
    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.on = False
        self.pages = window.tabs.findChild(QStackedWidget)  # the picture, below the tab bar
        self.caption = CaptionOverlay(self.pages)
        self.error = ""  # the last error said while on the stage (the status bar is hidden there)
        self.bar = StageBar()
        window.centralWidget().layout().addWidget(self.bar)
        self.bar.run_button.clicked.connect(window.run)
        self.bar.stop_button.clicked.connect(window.runner.stop)
        self.run_words = ""  # what a run is doing, in words: the caption's first line while it goes
        window.feedback.add_face(Face(self.bar.run_button, self.bar.stop_button, self.bar.progress, self.say_running))
        self.bar.picker.activated.connect(lambda index: self.bring(self.bar.picker.itemData(index)))
        window.tabs.currentChanged.connect(self._show_front_in_picker)
        self._lent: QScrollArea | None = None  # the Animation panel's scroll area, while its view is on the bar
        self._moved: dict[str, QScrollArea] = {}  # a docked picture view on the stage -> the panel it left
        self._shown: list[QDockWidget] = []  # panels a lesson's evidence opened beside the picture
        self.actions = [self._action(f"Show {BY_NAME[name].title}", key, lambda _checked=False, n=name: self.bring(n))
                        for key, name in KEYS]  # fmt: skip
        self.actions += [self._action("Lesson text on the stage", "L", self.toggle_lesson),
                         self._action("Whole caption on the stage", "C", self.caption.toggle)]  # fmt: skip
        state = window.state
        for signal in (state.caption_changed, state.trace_changed, state.frame_changed, state.selection_changed):
            signal.connect(lambda *_: self._say())
        window.tabs.currentChanged.connect(lambda *_: self._say())
        state.entry_changed.connect(lambda *_: self._close_shown())

    def _action(self, text: str, key: str, slot) -> QAction:
        action = QAction(text, self.window)
        action.setShortcut(QKeySequence(key))
        action.setToolTip(f"{text} ({key}, presentation mode)")
        action.triggered.connect(slot)
        action.setEnabled(False)
        self.window.addAction(action)
        return action

    # ---- in and out -----------------------------------------------------------------------------------
    def enter(self) -> None:
        window = self.window
        self.on = True
        size = window.size()
        for view in window.views.values():  # compact first: no moment with the wide everyday rows on the stage
            view.set_compact(True)
        window.menuBar().hide()
        for bar in window.findChildren(QToolBar):
            bar.hide()
        window.statusBar().hide()
        window.tabs.tabBar().hide()
        transport = self._dock_of("animation")
        if transport is not None:  # the transport joins the stage's row
            self._lent = transport.widget()
            self.bar.row.addWidget(self._lent.takeWidget(), 1)
        self.set_running(window.runner.running)  # a run already going shows on the row at once
        for dock in window.findChildren(QDockWidget):
            dock.hide()
        self.error = ""
        self.bar.show()
        for name in DOCKED_PICTURES:
            self._take_into_tabs(name)
        window.banner.hide()
        for action in self.actions:
            action.setEnabled(True)
        window.tabs.setFocus()
        window.resize(size)  # the stage never asks for a bigger window than the everyday one had
        self._say()

    def leave(self) -> None:
        window = self.window
        self.on = False
        for action in self.actions:
            action.setEnabled(False)
        if self._lent is not None:  # the transport back to its panel before it widens to its everyday rows
            animation = window.views["animation"]
            self.bar.row.removeWidget(animation)
            self._lent.setWidget(animation)
            animation.show()  # a run may have hidden it on the row
            self._lent = None
        self.bar.hide()
        for name in list(self._moved):
            self._give_back(name)
        for view in window.views.values():
            view.set_compact(False)
        window.tabs.tabBar().show()
        window.statusBar().show()
        for bar in window.findChildren(QToolBar):
            bar.show()
        window.menuBar().show()
        self.caption.say("")
        window.banner.setVisible(bool(window.state.caption))

    # ---- on the stage ---------------------------------------------------------------------------------
    def bring(self, name: str) -> None:
        """A view to the front of the stage (number keys)."""
        view = self.window.views[name]
        if self.window.tabs.indexOf(view) >= 0:
            self.window.tabs.setCurrentWidget(view)

    def set_running(self, running: bool) -> None:
        """While a run is going the row shows Stop and the run's bar in the transport's place."""
        self.bar.stop_button.setVisible(running)
        self.bar.progress.setVisible(running)
        if self._lent is not None:
            self.window.views["animation"].setVisible(not running)

    def show_panel(self, dock: QDockWidget) -> None:
        """A panel the scene asks for (a lesson's evidence in the Output panel) beside the picture, until
        the next lesson is picked: nothing of one lesson stays on the stage of the next."""
        dock.show()
        dock.raise_()
        if dock not in self._shown:
            self._shown.append(dock)

    def _close_shown(self) -> None:
        if self.on:
            for dock in self._shown:
                dock.hide()
        self._shown.clear()

    def toggle_lesson(self) -> None:
        """The lesson text comes beside the picture, or goes."""
        dock = self._dock_of("lesson")
        if dock is None:
            return
        dock.setVisible(not dock.isVisible())
        if dock.isVisible():
            dock.raise_()
            self.window.resizeDocks([dock], [int(self.window.width() * LESSON_SHARE)], Qt.Orientation.Horizontal)

    def say_running(self, words: str) -> None:
        """What the run is doing, over the picture while it goes ("" once it ends)."""
        self.run_words = words
        self._say()

    def say_error(self, text: str) -> None:
        """An error while the status bar is hidden: said over the picture, in a red badge, until the next run."""
        self.error = text
        self._say()

    def _show_front_in_picker(self, *_) -> None:
        index = self.bar.picker.findData(self._front_name())
        if index >= 0:
            self.bar.picker.setCurrentIndex(index)

    def front(self) -> View | None:
        view = self.window.tabs.currentWidget()
        return view if isinstance(view, View) else None

    def _front_name(self) -> str | None:
        """The name in the table of views of the view in front."""
        front = self.window.tabs.currentWidget()
        return next((name for name, view in self.window.views.items() if view is front), None)

    def _say(self) -> None:
        if not self.on:
            return
        caption, front = self.window.state.caption, self.front()
        name = self._front_name()
        self.caption.set_below(name is not None and BY_NAME[name].caption_below)
        stopped = self.window.state.stopped  # the front view's words would only repeat the error badge's
        headline = front.headline() if front is not None and not stopped else ""
        words = f"<b>{code_as_html(caption)}</b>" if caption else ""
        error = f"<b>{badge_html(code_as_html(self.error), 'bad')}</b>" if self.error else ""
        running = f"<b>{badge_html(code_as_html(self.run_words), 'busy')}</b>" if self.run_words else ""
        self.caption.open_whole(bool(self.error) and self.window.state.trace is None)  # nothing else to see
        self.caption.say("<br>".join(part for part in (running, error, words, headline) if part))

    # ---- moving docked pictures -----------------------------------------------------------------------
    def _dock_of(self, name: str) -> QDockWidget | None:
        return next((d for d in self.window.findChildren(QDockWidget) if self._holds(d, name)), None)

    def _holds(self, dock: QDockWidget, name: str) -> bool:
        area = dock.widget()
        return isinstance(area, QScrollArea) and area.widget() is self.window.views[name]

    def _take_into_tabs(self, name: str) -> None:
        dock = self._dock_of(name)
        if dock is None:
            return
        area = dock.widget()
        view = area.takeWidget()
        self._moved[name] = area
        self.window.tabs.addTab(view, BY_NAME[name].title)

    def _give_back(self, name: str) -> None:
        view, area = self.window.views[name], self._moved.pop(name)
        self.window.tabs.removeTab(self.window.tabs.indexOf(view))
        area.setWidget(view)
        view.set_on_screen(True)
