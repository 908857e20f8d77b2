"""What the memory system makes of a launch: coalescing of global requests, bank conflicts of shared
ones, turns of constant ones, occupancy and divergence, per source line and per array, as JSON-able
data (stored once per launch in trace.analysis["memory"])."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis import divergence, occupancy
from gpuviz.core.analysis.coalescing import itemsizes
from gpuviz.core.analysis.memory_counts import memory_counts
from gpuviz.core.analysis.memory_units import GLOBAL, SHARED, SPACES
from gpuviz.core.analysis.requests import Requests, dense_ids, group_requests
from gpuviz.core.trace.columns import KIND_NAMES
from gpuviz.core.trace.model import Trace


def memory_report(trace: Trace) -> dict:
    """Occupancy always; coalescing, bank conflicts and divergence when the trace has an access log."""
    theory, seen = occupancy.theoretical(trace), occupancy.measured(trace)
    report = {
        "occupancy_theoretical": theory["occupancy"],
        "occupancy_measured": seen["occupancy"],
        "occupancy_limiter": theory["limiter"],
        "occupancy": {"theoretical": theory, "measured": seen, "schedule": trace.meta.get("schedule")},
    }
    if trace.accesses is None:
        return {**report, "lines": None, "arrays": None, "divergence": None,
                "counts": None, "skipped": "level threads: no access log to group into warp requests"}  # fmt: skip
    lines, grouped = _line_rows(trace)
    return {
        **report,
        "lines": lines,
        "arrays": _array_rows(lines),
        "counts": memory_counts(lines),
        "divergence": divergence.divergence(trace, grouped),
        "truncated": trace.truncated,
    }


def _line_rows(trace: Trace) -> tuple[list[dict], Requests]:
    """(one row per (source line, array, kind): requests and their cost; the log's warp requests, for
    divergence.py). Every request is of one array, so one pass costs the requests of all three spaces."""
    from gpuviz.core.analysis.request_costs import request_costs  # numba: on first use, not with the app

    acc = trace.accesses
    requests = group_requests(trace, ordered=False)  # the rows below sum over requests: any order
    codes = [SPACES.index(entry["space"]) if entry["space"] in SPACES else -1 for entry in trace.meta.get("arrays", [])]
    space = np.array(codes or [-1], np.int64)[requests.array]
    costs = request_costs(requests.of_row, len(requests), requests.spans(), acc["index"], acc["thread"], space,
                          itemsizes(trace)[requests.array])  # fmt: skip
    rows = _site_rows(trace, requests, space, costs)
    return sorted(rows, key=lambda r: (r["line"], r["array"], r["kind"])), requests


def _site_rows(trace: Trace, requests: Requests, space: np.ndarray, costs: tuple) -> list[dict]:
    """The rows of every access site of an array in one of the three spaces, from its requests' costs:
    request_costs.py's (sectors, lines, ideal) for global, (degree, wavefronts, ideal) for shared and
    (turns, 0, 0) for constant memory."""
    from gpuviz.core.analysis.request_costs import site_sums  # numba: on first use, not with the app

    mine = space >= 0
    every = bool(mine.all())  # the usual case: no copies
    pick = (lambda values: values) if every else (lambda values: values[mine])
    site, first = dense_ids(pick(requests.line), pick(requests.array), pick(requests.kind))
    if len(first) == 0:
        return []
    count, worst, totals = site_sums(site, len(first), *(pick(values) for values in (*costs, requests.lanes)))
    sums, lanes, codes = totals[:3], totals[3], pick(space)[first]
    line, array, kind = pick(requests.line)[first], pick(requests.array)[first], pick(requests.kind)[first]
    names, rows = trace.array_names(), []
    for s in range(len(first)):
        entry = {"line": int(line[s]), "array": names[int(array[s])], "space": SPACES[codes[s]],
                 "kind": KIND_NAMES[int(kind[s])], "requests": int(count[s]),
                 "lanes_per_request": round(float(lanes[s] / count[s]), 3)}  # fmt: skip
        rows.append(entry | _cost_fields(codes[s], count[s], worst[s], [values[s] for values in sums]))
    return rows


def _cost_fields(code: int, count: int, worst: int, sums: list[float]) -> dict:
    """A site's cost: sectors of global memory, wavefronts of shared, turns of constant; None where a
    figure is not of its space."""
    fields = dict.fromkeys(("sectors_per_request", "ideal_sectors_per_request", "efficiency", "lines_per_request",
                            "bank_conflict_degree", "sectors", "wavefronts", "bank_conflicts", "turns_per_request",
                            "turns"))  # fmt: skip
    first, second, third = sums
    if code == GLOBAL:
        sectors, ideal = first / count, third / count  # totals over the site's requests (memory_counts.py)
        fields.update(sectors=int(first), sectors_per_request=round(float(sectors), 3),
                      ideal_sectors_per_request=round(float(ideal), 3), efficiency=round(float(ideal / sectors), 3),
                      lines_per_request=round(float(second / count), 3))  # fmt: skip
    elif code == SHARED:  # banks, not sectors
        fields.update(bank_conflict_degree={"max": int(worst), "mean": round(float(first / count), 3)},
                      wavefronts=int(second), bank_conflicts=int(second - third))  # fmt: skip
    else:  # constant memory: the distinct addresses its lanes read (its turns)
        fields.update(turns_per_request={"max": int(worst), "mean": round(float(first / count), 3)},
                      turns=int(first))  # fmt: skip
    return fields


def _array_rows(lines: list[dict]) -> list[dict]:
    """Per array: the line rows' requests pooled."""
    result: dict[str, dict] = {}
    for row in lines:
        entry = result.setdefault(row["array"], {"array": row["array"], "space": row["space"], "requests": 0,
                                                 "sectors": 0.0, "ideal": 0.0, "worst": 0, "degrees": 0.0})  # fmt: skip
        n = row["requests"]
        entry["requests"] += n
        turns = row.get("turns_per_request")
        if turns:  # constant memory: the worst turns and the mean, pooled as bank conflicts are
            entry["worst"] = max(entry["worst"], turns["max"])
            entry["degrees"] += turns["mean"] * n
        elif row["bank_conflict_degree"]:
            entry["worst"] = max(entry["worst"], row["bank_conflict_degree"]["max"])
            entry["degrees"] += row["bank_conflict_degree"]["mean"] * n
        else:
            entry["sectors"] += row["sectors_per_request"] * n
            entry["ideal"] += row["ideal_sectors_per_request"] * n
    return [_array_summary(e) for e in result.values()]


def _array_summary(entry: dict) -> dict:
    n, shared = entry["requests"], entry["space"] == "shared"
    summary = {"array": entry["array"], "space": entry["space"], "requests": n, "sectors_per_request": None,
               "ideal_sectors_per_request": None, "efficiency": None, "bank_conflict_degree": None,
               "turns_per_request": None}  # fmt: skip
    if entry["space"] == "const":
        summary["turns_per_request"] = {"max": entry["worst"], "mean": round(entry["degrees"] / n, 3)}
    elif shared:
        summary["bank_conflict_degree"] = {"max": entry["worst"], "mean": round(entry["degrees"] / n, 3)}
    else:
        summary.update(sectors_per_request=round(entry["sectors"] / n, 3),
                       ideal_sectors_per_request=round(entry["ideal"] / n, 3),
                       efficiency=round(entry["ideal"] / entry["sectors"], 3))  # fmt: skip
    return summary
