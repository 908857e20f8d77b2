"""What one thread was and did: its indices, warp, SM, times and the elements it touched."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpuviz.app.state import AppState
from gpuviz.core.trace import Trace

MAX_LISTED = 8


def thread_record(trace: Trace, gid: int) -> str:
    """A thread's record as HTML (also the hover text)."""
    t = trace.threads
    unit = trace.meta.get("time_unit", "tick")
    rows = [
        ("block", _dims(t["block_idx"][gid])),
        ("thread", _dims(t["thread_idx"][gid])),
        ("global id", f"{gid:,}"),
        ("warp / lane", f"{int(t['warp'][gid])} / {int(t['lane'][gid])}"),
        ("SM", str(int(t["sm"][gid]))),
        ("start / end", f"{int(t['t_start'][gid]):,} / {int(t['t_end'][gid]):,} {unit}"),
    ]
    rows += _accesses(trace, gid)
    body = "".join(f"<tr><td style='color:#9aa'>{k}</td><td><b>{v}</b></td></tr>" for k, v in rows)
    return f"<table cellspacing='4'>{body}</table>"


def _accesses(trace: Trace, gid: int) -> list[tuple[str, str]]:
    if trace.accesses is None:
        return [("accesses", "not recorded (level threads)")]
    acc = trace.accesses
    mine = np.flatnonzero(acc["thread"] == gid)
    names = trace.array_names()
    rows = []
    for label, kinds in (("read", (0,)), ("wrote", (1, 2))):
        chosen = mine[np.isin(acc["kind"][mine], kinds)]
        items = [f"{names[acc['array'][i]]}[{acc['index'][i]}] (line {acc['line'][i]})" for i in chosen[:MAX_LISTED]]
        more = f" and {len(chosen) - MAX_LISTED} more" if len(chosen) > MAX_LISTED else ""
        rows.append((label, ", ".join(items) + more if items else "nothing"))
    return rows


def _dims(values) -> str:
    return "(" + ", ".join(str(int(v)) for v in values) + ")"


class RecordView(QWidget):
    """The selected thread's record; follows the shared selection."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.title = QLabel("<b>Thread</b>")
        self.body = QLabel("Click a thread in the grid.")
        self.body.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.body, 1)
        state.selection_changed.connect(self._on_selection_changed)

    def _on_selection_changed(self, gid: int) -> None:
        trace = self.state.trace
        if trace is None or gid < 0:
            self.title.setText("<b>Thread</b>")
            self.body.setText("Click a thread in the grid.")
            return
        self.title.setText(f"<b>Thread {gid:,}</b>")
        self.body.setText(thread_record(trace, gid))
