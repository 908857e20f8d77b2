"""What the `gpuviz_check` fixture and `pytest --gpuviz` do: run kernels on gpuviz's simulator, check each launch,
and on a failure save a picture of it and name its path in the failure message (loaded only when a check runs)."""

from __future__ import annotations

import re
from pathlib import Path

import gpuviz
from gpuviz.core.analysis.report import memory_analysis, race_report
from gpuviz.core.error_report import error_report
from gpuviz.core.trace.model import Trace


class CheckFailed(AssertionError):
    """A launch broke a check; the message says what, where, and where its picture is."""


class Checker:
    """`launch` and `script` run on the simulator and check every launch: no races, no memory errors, no barrier
    or warp-sync divergence (each can be allowed), and at most the expected sectors per request of each array
    named in `sectors_per_request`."""

    def __init__(self, pictures: Path, test: str) -> None:
        self.pictures = Path(pictures)
        self.test = test

    def launch(self, kernel, grid, block, *args, races: bool = False, memory_errors: bool = False,
               divergence: bool = False, sectors_per_request: dict[str, float] | None = None,
               **options) -> Trace:  # fmt: skip
        """One launch of `kernel` (a @cuda.jit kernel, a function or source text) on the simulator; the host
        arrays in `args` hold the results afterwards, as after a numba launch. Options are gpuviz.RunOptions'."""
        __tracebackhide__ = True  # a failure points at the test's line, not at the plugin's
        options["backend"] = "sim"
        trace = gpuviz.trace(kernel, **options)[grid, block](*args)
        self.check(trace, races, memory_errors, divergence, sectors_per_request)
        return trace

    def script(
        self,
        path: str | Path,
        *argv: str,
        races: bool = False,
        memory_errors: bool = False,
        divergence: bool = False,
        sectors_per_request: dict[str, float] | None = None,
    ) -> list[Trace]:
        """Every launch of a script run unmodified on the simulator, each checked."""
        from gpuviz.program.script import run_script

        __tracebackhide__ = True
        session = gpuviz.Session(gpuviz.RunOptions(backend="sim"), keep_traces=True)
        run_script(path, session, list(argv))
        for trace in session.traces:
            self.check(trace, races, memory_errors, divergence, sectors_per_request)
        return session.traces

    def check(
        self,
        trace: Trace,
        races: bool = False,
        memory_errors: bool = False,
        divergence: bool = False,
        sectors_per_request: dict[str, float] | None = None,
    ) -> None:
        """Raise CheckFailed, with a picture saved, when the launch breaks what was asked."""
        __tracebackhide__ = True
        problems, scene = [], {}
        report = race_report(trace)
        if not races and report is not None and report.racy:
            first = report.races[0] if report.races else None
            where = ""
            if first is not None:  # the picture: threads coloured by the value they read, a racing one selected
                element = f"{first.array}[{first.index}]"
                where = f": first at {element} (line {first.first.line} and {first.second.line})"
                scene = {"element": element, "colour": "value read",
                         "select": trace.global_id(first.second.block, first.second.thread)}  # fmt: skip
            problems.append(f"{report.summary()}{where}")
        errors = error_report(trace)
        if not memory_errors and errors.memory:
            problems += [s for s in errors.sentences if "divergence" not in s]
        if not divergence and (errors.divergent_blocks or errors.divergent_warps):
            problems += [s for s in errors.sentences if "divergence" in s]
        for array, most in (sectors_per_request or {}).items():
            problems += self._sectors(trace, array, most)
        if problems:
            picture = self._picture(trace, scene)
            raise CheckFailed(f"gpuviz: {trace.kernel} (launch {trace.meta.get('launch', 0)}) on the simulator:\n  "
                              + "\n  ".join(problems) + f"\n  picture: {picture}")  # fmt: skip

    def _sectors(self, trace: Trace, array: str, most: float) -> list[str]:
        rows = memory_analysis(trace).get("arrays")
        if rows is None:
            return [f"sectors per request of {array}: not measured (recorded without accesses)"]
        row = next((r for r in rows if r["array"] == array), None)
        if row is None or row["sectors_per_request"] is None:
            named = ", ".join(r["array"] for r in rows if r["sectors_per_request"] is not None) or "none"
            return [f"sectors per request of {array}: no global requests to it (global arrays accessed: {named})"]
        if row["sectors_per_request"] > most:
            return [f"{array}: {row['sectors_per_request']:g} sectors per request, expected at most {most:g} "
                    f"(ideal {row['ideal_sectors_per_request']:g})"]  # fmt: skip
        return []

    def _picture(self, trace: Trace, scene: dict) -> Path | str:
        """The replay's grid of threads at the end of the launch (faulting threads marked; for a race, coloured
        by the value each read, a racing thread selected); where Qt cannot draw, why not."""
        name = re.sub(r"[^\w.-]+", "-", f"{self.test}-{trace.kernel}-{trace.meta.get('launch', 0)}").strip("-")
        path = self.pictures / f"{name[-150:]}.png"
        try:
            from gpuviz.app.pictures.render import render_picture
            from gpuviz.scene.scene import scene_at

            path.parent.mkdir(parents=True, exist_ok=True)
            return render_picture(scene_at(trace, **scene), "grid", path)
        except Exception as exc:  # noqa: BLE001 - the check's verdict stands without its picture
            return f"none ({type(exc).__name__}: {exc})"
