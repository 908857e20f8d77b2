"""The run service: what a worker process does for the app. Qt-free, and every message picklable.

The app sends a RunRequest to a fresh process and reads messages from a queue:
("status", text), ("log", line), ("trace", path), ("error", message, line or None), ("done",).
A crash or an endless kernel never reaches the window: the app kills the process.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path

from gpuviz.core.options import RunOptions


@dataclass(frozen=True)
class RunRequest:
    script: str  # path of the script to run (the editor's text is saved to a file first)
    out_dir: str
    options: RunOptions = field(default_factory=RunOptions)
    overrides: tuple[tuple[int, tuple, tuple], ...] = ()  # (launch index, grid, block)


def execute(request: RunRequest, send) -> None:
    """Run the script, sending progress, traces and errors through `send`."""
    from gpuviz.core.errors import GpuvizError
    from gpuviz.program.script import run_script
    from gpuviz.run.session import Session

    def report(line: str) -> None:
        send(("log", line))
        if "compiling" in line:
            send(("status", "compiling..."))

    class AppSession(Session):
        def launch(self, py_func, grid, block, args):
            trace = super().launch(py_func, grid, block, args)
            send(("trace", str(self.records[-1].path)))
            return trace

    overrides = {index: (grid, block) for index, grid, block in request.overrides}
    session = AppSession(request.options, out_dir=request.out_dir, report=report,
                         stage=lambda what: send(("status", what)), overrides=overrides)  # fmt: skip
    try:
        send(("status", "starting"))
        run_script(request.script, session)
        if not session.records:
            send(("error", "the script launched no kernel", None))
    except GpuvizError as exc:
        send(("error", str(exc), getattr(exc, "line", None)))
    except BaseException as exc:  # the worker must always answer, whatever the script did
        send(("error", f"{type(exc).__name__}: {exc}", None))
        send(("log", traceback.format_exc()))
    send(("done",))


def worker_main(request: RunRequest, queue) -> None:
    """Entry point of the worker process."""
    Path(request.out_dir).mkdir(parents=True, exist_ok=True)
    execute(request, queue.put)
