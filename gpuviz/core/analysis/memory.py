"""What the memory system makes of a launch: coalescing of global requests, bank conflicts of shared
ones, turns of constant ones, occupancy and divergence, per source line and per array, as JSON-able
data (stored once per launch in trace.analysis["memory"])."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis import banks, coalescing, constant, divergence, occupancy
from gpuviz.core.analysis.array_rows import array_mask
from gpuviz.core.analysis.memory_counts import memory_counts
from gpuviz.core.analysis.requests import dense_ids, group_requests
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


def space_rows(trace: Trace, space: str) -> np.ndarray:
    """Access-log rows of arrays in one memory space ("global", "shared" or "const")."""
    chosen = [a["space"] == space for a in trace.meta.get("arrays", [])]
    return np.flatnonzero(array_mask(trace.accesses["array"], chosen))


def _line_rows(trace: Trace) -> tuple[list[dict], list]:
    """(one row per (source line, array, kind): requests and their cost; the rows of each space with
    their requests, for divergence.py, or nothing when some rows are in no space of the three)."""
    acc, rows, grouped = trace.accesses, [], []
    spaces = {a["space"] for a in trace.meta.get("arrays", [])}
    for space in ("global", "shared", "const"):
        if space not in spaces:
            continue  # no array of this space: no rows to look for
        mine = None if spaces == {space} else space_rows(trace, space)  # one space: every row, no copies
        if mine is not None and len(mine) == 0:
            continue
        requests = group_requests(trace, mine, ordered=False)  # the rows below sum over requests: any order
        grouped.append((mine, requests))
        index = acc["index"] if mine is None else acc["index"][mine]
        if space == "const":
            rows += _const_rows(trace, requests, constant.request_turns(requests, index))
        elif space == "shared":
            cost = banks.bank_cost(trace, requests, index, lambda mine=mine: _lanes_of(acc, mine))
            rows += _summarise(trace, space, requests, None, cost)
        else:
            rows += _summarise(trace, space, requests, coalescing.request_cost(trace, requests, index), None)
    covered = sum(len(requests.of_row) for _, requests in grouped) == len(acc["thread"])
    return sorted(rows, key=lambda r: (r["line"], r["array"], r["kind"])), grouped if covered else []


def _lanes_of(acc: dict, rows: np.ndarray | None) -> np.ndarray:
    """The lane of every given row (None: every row), for bank conflicts of elements wider than a word."""
    return (acc["thread"] if rows is None else acc["thread"][rows]) % 32


def _summarise(trace: Trace, space: str, requests, cost, shared) -> list[dict]:
    """`cost`: coalescing.request_cost's sectors (global), or None; `shared`: banks.bank_cost's (degree,
    wavefronts, ideal wavefronts) per request (shared), or None."""
    site, first = dense_ids(requests.line, requests.array, requests.kind)
    count = np.bincount(site, minlength=len(first))

    def total(values):
        return np.bincount(site, weights=values, minlength=len(first))

    def mean(values):
        return total(values) / count

    degree = None if shared is None else shared[0]
    if degree is None:
        sector_total = total(cost.sectors)
        sectors, ideal, lines = mean(cost.sectors), mean(cost.ideal), mean(cost.lines)
    else:
        wavefront_total, conflict_total = total(shared[1]), total(shared[1] - shared[2])
    lanes = mean(requests.lanes)
    worst = np.zeros(len(first), np.int64)
    if degree is not None:
        np.maximum.at(worst, site, degree)
        degree_mean = mean(degree)
    names = trace.array_names()
    rows = []
    for s, row in enumerate(first):
        entry = {
            "line": int(requests.line[row]),
            "array": names[int(requests.array[row])],
            "space": space,
            "kind": KIND_NAMES[int(requests.kind[row])],
            "requests": int(count[s]),
            "lanes_per_request": round(float(lanes[s]), 3),
            "sectors_per_request": None,  # shared memory has banks, not sectors
            "ideal_sectors_per_request": None,
            "efficiency": None,
            "lines_per_request": None,
            "bank_conflict_degree": None,
            "sectors": None,  # totals over the site's requests (Nsight Compute's sums: memory_counts.py)
            "wavefronts": None,
            "bank_conflicts": None,
            "turns_per_request": None,  # constant memory only (_const_rows)
            "turns": None,
        }
        if degree is None:
            entry["sectors"] = int(sector_total[s])
            entry["sectors_per_request"] = round(float(sectors[s]), 3)
            entry["ideal_sectors_per_request"] = round(float(ideal[s]), 3)
            entry["efficiency"] = round(float(ideal[s] / sectors[s]), 3)
            entry["lines_per_request"] = round(float(lines[s]), 3)
        else:
            entry["bank_conflict_degree"] = {"max": int(worst[s]), "mean": round(float(degree_mean[s]), 3)}
            entry["wavefronts"], entry["bank_conflicts"] = int(wavefront_total[s]), int(conflict_total[s])
        rows.append(entry)
    return rows


def _const_rows(trace: Trace, requests, turns: np.ndarray) -> list[dict]:
    """Rows of constant-memory sites: per request, the distinct addresses its lanes read (its turns)."""
    site, first = dense_ids(requests.line, requests.array, requests.kind)
    count = np.bincount(site, minlength=len(first))
    total = np.bincount(site, weights=turns, minlength=len(first))
    lanes = np.bincount(site, weights=requests.lanes, minlength=len(first))
    worst = np.zeros(len(first), np.int64)
    np.maximum.at(worst, site, turns)
    names, rows = trace.array_names(), []
    for s, row in enumerate(first):
        rows.append({
            "line": int(requests.line[row]), "array": names[int(requests.array[row])], "space": "const",
            "kind": KIND_NAMES[int(requests.kind[row])], "requests": int(count[s]),
            "lanes_per_request": round(float(lanes[s] / count[s]), 3), "sectors_per_request": None,
            "ideal_sectors_per_request": None, "efficiency": None, "lines_per_request": None,
            "bank_conflict_degree": None, "sectors": None, "wavefronts": None, "bank_conflicts": None,
            "turns_per_request": {"max": int(worst[s]), "mean": round(float(total[s] / count[s]), 3)},
            "turns": int(total[s]),
        })  # fmt: skip
    return rows


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
