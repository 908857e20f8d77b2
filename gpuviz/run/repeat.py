"""Run a launch again from the same inputs: the distribution of outcomes a race produces."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.outcomes import lost_updates
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.options import RunOptions
from gpuviz.core.trace.model import Trace

SEQUENTIAL_LIMIT = 1 << 20  # threads: above this the serial reference run is skipped (too slow)


def repeat_launch(backend, py_func, config: LaunchConfig, trace: Trace, options: RunOptions) -> None:
    """Run the launch options.repeat - 1 more times (simulator: seed + k) and serially, one thread at a
    time in thread order and in reverse order, from the inputs of `trace`, and store per-array outcomes
    in it (`trace.outcomes`). Two serial orders, because threads that wait for each other's writes
    without a barrier give different serial answers (core/analysis/outcomes.py `serial_answers`)."""
    params = trace.param_names
    scalars = trace.meta.get("scalars", {})
    names = list(trace.args)
    runs = {name: [trace.after(name)] for name in names}
    lost = {name: [value] for name, value in lost_updates(trace).items() if name in runs}
    for k in range(1, options.repeat):
        again = backend.run(py_func, config, _inputs(trace, params, scalars), options.with_(seed=options.seed + k))
        for name in names:
            runs[name].append(again.after(name))
        for name, value in lost_updates(again).items():
            if name in lost:
                lost[name].append(value)
    outcomes = {f"{name}.runs": np.stack(values) for name, values in runs.items()}
    outcomes.update({f"{name}.lost": np.stack(values) for name, values in lost.items()})
    if config.threads <= SEQUENTIAL_LIMIT:
        from gpuviz.backends import get_backend

        simulator = get_backend("sim")
        for schedule in ("sequential", "reversed"):
            serial = simulator.run(py_func, config, _inputs(trace, params, scalars),
                                   options.with_(schedule=schedule, level="threads"))  # fmt: skip
            outcomes.update({f"{name}.{schedule}": serial.after(name) for name in names})
    trace.outcomes = {**trace.outcomes, **outcomes}  # keeps what the backend stored (a GPU's unrecorded run)
    trace.meta["outcomes"] = {"runs": options.repeat, "seeds": [options.seed + k for k in range(options.repeat)],
                              "sequential": config.threads <= SEQUENTIAL_LIMIT}  # fmt: skip


def _inputs(trace: Trace, params: list[str], scalars: dict) -> tuple:
    """Fresh copies of the launch's inputs: arrays as they were before it, scalars as given."""
    return tuple(trace.before(name).copy() if name in trace.args else scalars.get(name) for name in params)
