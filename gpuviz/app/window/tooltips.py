"""One table of tooltips for the controls that are made without one: (owner, attribute, tip). The
owner is a window attribute or a view's name; an attribute holding a list tips every item."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

TIPS = (
    ("catalog", "list", "Lessons in course order, then examples: click one to open it"),
    ("catalog", "open_button", "Open your own script (.py) or a saved trace (.npz) (Ctrl+O)"),
    ("launch", "grid", "Blocks in the grid along x, y, z (used when the launch is overridden)"),
    ("launch", "block", "Threads per block along x, y, z (used when the launch is overridden)"),
    ("launch", "cover", "How many elements the grid should cover"),
    ("lesson", "answer_button", "After a run: the answer, and the views pointed at the evidence"),
    ("races", "races", "Each race found: click one to select the racing threads"),
    ("memory", "execution", "Which memory instruction to show"),
    ("timeline", "mode", "What the SM timeline shows"),
    ("data", "array", "Which array of the kernel to show"),
    ("data", "mode", "What each element's colour shows"),
    ("data", "slice", "Which slice of a 3-D array to show"),
    ("animation", "slider", "The step of the animation shown (Left / Right)"),
    ("animation", "speed", "Steps per second while playing"),
    ("animation", "colour", "What a thread's colour means in the grid"),
)


def add_tooltips(window: QMainWindow) -> None:
    for owner_name, attribute, tip in TIPS:
        owner = window.views.get(owner_name) or getattr(window, owner_name)
        widgets = getattr(owner, attribute)
        for widget in widgets if isinstance(widgets, list) else [widgets]:
            if not widget.toolTip():
                widget.setToolTip(tip)
