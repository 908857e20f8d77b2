"""Two launches side by side (racy vs fixed, naive vs tiled, my edit vs the original): what differs,
as rows of (what, this launch, the other). A pure function of two traces."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.report import race_summary
from gpuviz.core.copies import copies_words
from gpuviz.core.local_types import float_locals
from gpuviz.core.marks import duration_words
from gpuviz.core.numbers import number
from gpuviz.core.trace.model import Trace


def compare_launches(this: Trace, other: Trace) -> list[tuple[str, str, str]]:
    """The rows a teacher reads first: launch, time, races, memory errors, memory traffic, outputs."""
    rows = [
        ("kernel", this.kernel, other.kernel),
        ("launch", _launch(this), _launch(other)),
        ("copies host <-> device", copies_words(this.meta), copies_words(other.meta)),
        ("float locals", float_locals(this.meta), float_locals(other.meta)),
        ("time", _span(this), _span(other)),
        ("races", race_summary(this), race_summary(other)),
        ("memory errors", f"{this.error_count:,}", f"{other.error_count:,}"),
        ("global sectors per request", _sectors(this), _sectors(other)),
        ("worst bank conflict", _banks(this), _banks(other)),
    ]
    rows += [(f"{name} after", *texts) for name, texts in _outputs(this, other)]
    return rows


def _launch(trace: Trace) -> str:
    grid, block = trace.grid, trace.block
    return f"grid {grid} block {block}: {trace.n_threads:,} threads"


def _span(trace: Trace) -> str:
    if not trace.n_threads:
        return "-"
    span = int(trace.threads["t_end"].max() - trace.threads["t_start"].min())
    return duration_words(span, trace.meta.get("time_unit", "tick"))


def _memory_lines(trace: Trace) -> list[dict]:
    """The memory report's rows; none while it is still to be computed (a first frame shows before it)."""
    return [row for row in (trace.analysis.get("memory") or {}).get("lines") or [] if isinstance(row, dict)]


def _sectors(trace: Trace) -> str:
    rows = [r for r in _memory_lines(trace) if r.get("space") == "global" and r.get("requests")]
    if not rows:
        return "not measured"
    requests = sum(r["requests"] for r in rows)
    sectors = sum(r["requests"] * r["sectors_per_request"] for r in rows)
    ideal = sum(r["requests"] * r["ideal_sectors_per_request"] for r in rows)
    return f"{sectors / requests:.1f} (ideal {ideal / requests:.1f}) over {requests:,} requests"


def _banks(trace: Trace) -> str:
    degrees = [r["bank_conflict_degree"] for r in _memory_lines(trace) if r.get("bank_conflict_degree")]
    worst = max((d["max"] if isinstance(d, dict) else d for d in degrees), default=None)
    return "no shared accesses" if worst is None else f"{number(worst)}-way"


def _outputs(this: Trace, other: Trace) -> list[tuple[str, tuple[str, str]]]:
    """Arrays of the same name in both: how they compare after the launches."""
    found = []
    for name in sorted(set(this.args) & set(other.args)):
        a, b = this.after(name), other.after(name)
        if a.shape != b.shape or a.dtype.names or b.dtype.names:
            found.append((name, (f"shape {a.shape}", f"shape {b.shape}")))
            continue
        same = np.isclose(a, b, equal_nan=True) if a.dtype.kind in "fc" else a == b
        differ = int((~same).sum())
        note = "the same" if differ == 0 else f"{differ:,} of {a.size:,} elements differ"
        found.append((name, (f"sum {_sum(a)}; {note}", f"sum {_sum(b)}")))
    return found


def _sum(values: np.ndarray) -> str:
    return f"{number(values.sum())}" if values.dtype.kind in "iufcb" else "-"
