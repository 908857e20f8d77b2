"""The times a GPU run measured for the kernel as numba compiles it (its plain twin: no recording),
as a lesson about speed states them beside its stored figures: each with the card and the day."""

from __future__ import annotations

import math
from collections.abc import Iterable

from gpuviz.core.fidelity import measured_label
from gpuviz.core.trace.model import Trace


def plain_time_lines(traces: Iterable[Trace]) -> list[str]:
    """One line per launch whose plain twin a GPU timed, in launch order:
    "launch 2, `transpose_tiled`, 4 blocks of 1,024 threads: 0.0061 ms (measured: NVIDIA H100 80GB HBM3,
    2026-11-26), the median of 5 launches". Simulated launches have none."""
    lines = []
    for number, trace in enumerate(traces, start=1):
        timed = trace.meta.get("plain_time")
        if not timed:
            continue
        label = measured_label(timed["card"], timed["date"])
        blocks, threads = math.prod(trace.grid), math.prod(trace.block)
        lines.append(f"launch {number}, `{trace.kernel}`, {blocks:,} blocks of {threads:,} threads: "
                     f"{timed['ms']:.4g} ms {label}, the median of {timed['launches']} launches")  # fmt: skip
    return lines


def plain_time_section(traces: Iterable[Trace]) -> str:
    """The lesson answer's words on this run's GPU times ('' when no launch ran on a GPU)."""
    lines = plain_time_lines(traces)
    if not lines:
        return ""
    listed = "\n".join(f"- {line}" for line in lines)
    return (
        "Each kernel of this run, compiled by numba as it is (no recording), timed with CUDA events:\n\n"
        f"{listed}\n\nThese are this run's sizes, where a GPU may be mostly idle; the figures above are "
        "at a size where a difference shows, if there is one."
    )
