"""A run sends each launch's trace before its analysis (the app shows it meanwhile), analyses it once,
then writes the file again with the analysis."""

import json
from pathlib import Path

import gpuviz
from gpuviz.core.analysis import races
from gpuviz.core.options import RunOptions
from gpuviz.run.messages import AnalysisReady, RunFinished, RunRequest, TraceReady
from gpuviz.run.worker import execute

SCRIPT = """import numpy as np
from numba import cuda

@cuda.jit
def k(a):
    a[0] += 1.0

k[2, 64](np.zeros(1))
"""


def test_the_trace_comes_first_then_its_analysis_once(tmp_path, monkeypatch):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    calls, real = [], races.find_races
    seen_on_disk = []

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    def send(message):
        messages.append(message)
        if isinstance(message, TraceReady):  # what the app would load now: no analysis yet
            seen_on_disk.append(gpuviz.load(message.path).analysis)

    monkeypatch.setattr(races, "find_races", counted)
    messages = []
    execute(RunRequest(str(script), str(tmp_path / "out"), RunOptions(backend="sim", level="accesses")), send)
    kinds = [type(m) for m in messages if isinstance(m, (TraceReady, AnalysisReady, RunFinished))]
    assert kinds == [TraceReady, AnalysisReady, RunFinished]
    ready, analysed = (m for m in messages if isinstance(m, (TraceReady, AnalysisReady)))
    assert ready.analysed is False and seen_on_disk == [{}]
    assert calls == [1]  # analysed once, in the run
    assert analysed.path == ready.path and analysed.analysis["races"]["locations"] == 1
    stored = gpuviz.load(Path(ready.path)).analysis
    assert stored == json.loads(json.dumps(analysed.analysis))  # the file holds it now


def test_the_worker_steps_back_once_the_app_has_a_trace_to_load(monkeypatch) -> None:
    """A sent unanalysed trace lowers the worker's priority (once); other messages do not."""
    from gpuviz.run import worker as service
    from gpuviz.run.messages import TraceReady

    niceness = [0]

    def nice(step: int) -> int:
        niceness[0] += step
        return niceness[0]

    monkeypatch.setattr(service.os, "nice", nice)
    sent = []

    class Queue:
        put = sent.append

    service._send_from_worker(Queue, TraceReady("a.npz", 0, "k", analysed=True))
    assert niceness == [0]
    for _ in range(2):
        service._send_from_worker(Queue, TraceReady("a.npz", 0, "k", analysed=False))
    assert niceness == [service.ANALYSIS_NICENESS] and len(sent) == 3
