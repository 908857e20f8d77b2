"""Before a big launch the app asks: when a launch's trace cannot fit the memory budget, say what will
happen (every thread but the accesses of the first and last blocks, or a refusal) and let the student
go on, record threads only, or cancel, before any worker starts."""

from __future__ import annotations

import math

from PySide6.QtWidgets import QMessageBox, QWidget

from gpuviz.core.budget import format_bytes
from gpuviz.core.launch_guard import TraceEstimate, estimate_trace, plan
from gpuviz.core.options import AUTO_BLOCKS, RunOptions
from gpuviz.program.dry_launches import dry_launches

FEW_BLOCKS = AUTO_BLOCKS  # the blocks whose accesses are kept when not all fit: the first and the last
GO_ON, THREADS_ONLY, CANCEL = "go on", "threads only", "cancel"
BUTTONS = {GO_ON: ("Go on", QMessageBox.ButtonRole.AcceptRole),
           THREADS_ONLY: ("Record threads only", QMessageBox.ButtonRole.ActionRole),
           CANCEL: ("Cancel", QMessageBox.ButtonRole.RejectRole)}  # fmt: skip


def biggest_problem(source: str, options: RunOptions, overrides: tuple = ()) -> tuple[str, TraceEstimate] | None:
    """The launch of the script (its constant launches, with the override) that fits the budget worst, and
    its plan; None when every one fits. The arrays are not known before the run: the estimate is the
    least the trace takes, and the worker's own guard still refuses what the arrays push over."""
    picked = {index: (grid, block) for index, grid, block in overrides}
    worst = None
    for index, launch in enumerate(dry_launches(source)):
        grid, block = picked.get(index, (launch.grid, launch.block))
        threads = math.prod(grid) * math.prod(block)
        level = options.level_for(threads)
        recorded = len(options.blocks) * math.prod(block) if options.blocks else None
        estimate = estimate_trace(launch.kernel, threads, level, (), options.repeat, recorded)
        verdict = plan(estimate, options.memory_budget)
        if verdict != "all" and (worst is None or (verdict, estimate.memory) > (worst[0], worst[1].memory)):
            worst = (verdict, estimate)  # `refused` sorts after `narrowed`
    return worst


def explain(verdict: str, estimate: TraceEstimate, budget: int) -> str:
    """What will happen, in the student's words, and what each choice does."""
    least = format_bytes(estimate.thread_bytes + estimate.snapshot_bytes)
    head = (f"{estimate.kernel} launches {estimate.threads:,} threads. Recording every access takes at least "
            f"{format_bytes(estimate.memory)}, more than the memory budget of {format_bytes(budget)}.")  # fmt: skip
    if verdict == "refused":
        return (
            f"{estimate.kernel} launches {estimate.threads:,} threads: even without their accesses the trace "
            f"takes at least {least}, more than the memory budget of {format_bytes(budget)}.\n\n"
            "The run would be refused. Launch fewer threads, or raise the memory budget in the preferences."
        )
    return (
        f"{head}\n\nGo on: every thread is recorded, but accesses only for the first and last blocks.\n"
        f"Record threads only: no accesses ({least}).\nCancel: change the launch first."
    )


def choose(parent: QWidget, text: str, choices: tuple[str, ...]) -> str:
    """One dialog with a button per choice; the answer's key (CANCEL when closed). One place, so tests can answer it."""
    box = QMessageBox(QMessageBox.Icon.Warning, "A big launch", text, parent=parent)
    box.setStyleSheet("QLabel#qt_msgbox_label { min-width: 28em; }")  # sentences, not a narrow column of words
    buttons = {box.addButton(*BUTTONS[key]): key for key in choices}
    box.setDefaultButton(next(b for b, key in buttons.items() if key == choices[0]))
    box.exec()
    return buttons.get(box.clickedButton(), CANCEL)


def options_after_asking(parent: QWidget, source: str, options: RunOptions, overrides: tuple = ()) -> RunOptions | None:
    """The options to run with (changed as the student chose), or None: do not run."""
    problem = biggest_problem(source, options, overrides)
    if problem is None:
        return options
    verdict, estimate = problem
    text = explain(verdict, estimate, options.memory_budget)
    if verdict == "refused":
        choose(parent, text, (CANCEL,))
        return None
    answer = choose(parent, text, (GO_ON, THREADS_ONLY, CANCEL))
    return {GO_ON: options.with_(blocks=FEW_BLOCKS), THREADS_ONLY: options.with_(level="threads")}.get(answer)


def choice_note(before: RunOptions, after: RunOptions) -> str:
    """What the student's answer changed, said in the output and with the result ('' when nothing)."""
    if after.level != before.level:
        return "threads only: every access would not fit the memory budget"
    if after.blocks != before.blocks:
        return "accesses of the first and last blocks only: every access would not fit the memory budget"
    return ""
