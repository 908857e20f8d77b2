"""One warp's requests at one source line, lane by lane: what the memory view draws for a selection."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis import banks, coalescing, constant
from gpuviz.core.analysis.requests import WARP, Requests, global_warp, group_requests
from gpuviz.core.trace.columns import KIND_NAMES
from gpuviz.core.trace.model import Trace


@dataclass(frozen=True)
class WarpRequest:
    """One request: its lanes, their elements, and where those fall (sectors, banks or addresses)."""

    array: str
    space: str  # "global", "shared" or "const"
    kind: str
    lanes: np.ndarray  # lane of each row
    elements: np.ndarray  # element (C-order index) of each row
    places: np.ndarray  # per row: sector (global), bank of its first word (shared) or element (const)
    words: np.ndarray  # per row: 4-byte word within the array (shared; the sector or element again otherwise)
    cost: int  # sectors touched (global), conflict degree (shared) or turns (const: distinct addresses)
    ideal: int  # fewest sectors for its bytes (global) or 1 (shared, const)


def warp_of(trace: Trace, gid: int) -> int:
    return int(global_warp(trace, np.array([gid]))[0])


def warp_threads(trace: Trace, warp: int) -> tuple[int, int]:
    """[first, last + 1) global thread ids of a global warp."""
    per_block = int(np.prod(trace.block))
    warps_per_block = -(-per_block // WARP)
    first = (warp // warps_per_block) * per_block + (warp % warps_per_block) * WARP
    return first, min(first + WARP, (warp // warps_per_block + 1) * per_block)


def warp_line_requests(trace: Trace, warp: int, line: int) -> list[WarpRequest]:
    """The requests one warp made at one line, in the order the warp executed them."""
    acc = trace.accesses
    if acc is None:
        return []
    first, end = warp_threads(trace, warp)
    thread = acc["thread"]
    rows = np.flatnonzero((acc["line"] == line) & (thread >= first) & (thread < end))
    if len(rows) == 0:
        return []
    requests = group_requests(trace, rows)
    first_row = np.array([np.flatnonzero(requests.of_row == r)[0] for r in range(len(requests))])
    return [_request(trace, requests, rows, r, first) for r in np.argsort(first_row, kind="stable")]


def _request(trace: Trace, requests: Requests, rows: np.ndarray, r: int, first_thread: int) -> WarpRequest:
    acc, entry = trace.accesses, trace.meta["arrays"][int(requests.array[r])]
    mine = rows[requests.of_row == r]
    lanes = (acc["thread"][mine] - first_thread).astype(np.int64)
    index = acc["index"][mine].astype(np.int64)
    array = np.full(len(mine), requests.array[r])
    if entry["space"] == "const":
        turns = int(constant.request_turns(_one_request(requests, r, len(mine)), index)[0])
        return WarpRequest(entry["name"], "const", KIND_NAMES[int(requests.kind[r])], lanes, index, index, index,
                           turns, 1)  # fmt: skip
    if entry["space"] == "shared":
        _, word, bank, _ = banks.lane_words(trace, array, index, lanes)
        first_word = np.arange(len(mine)) * (len(word) // len(mine))  # every row has as many words
        sub = _one_request(requests, r, len(mine))
        cost = int(banks.conflict_degree(trace, sub, index, lanes)[0])
        return WarpRequest(entry["name"], "shared", KIND_NAMES[int(requests.kind[r])], lanes, index,
                           bank[first_word], word[first_word], cost, 1)  # fmt: skip
    sectors = coalescing.lane_sectors(trace, int(requests.array[r]), index)
    cost_of = coalescing.request_cost(trace, _one_request(requests, r, len(mine)), index)
    return WarpRequest(entry["name"], "global", KIND_NAMES[int(requests.kind[r])], lanes, index, sectors, sectors,
                       int(cost_of.sectors[0]), int(cost_of.ideal[0]))  # fmt: skip


def _one_request(requests: Requests, r: int, n_rows: int) -> Requests:
    """The request r alone, as a Requests of one (so the analysis functions can cost it)."""
    one = np.array([0])
    return Requests(of_row=np.zeros(n_rows, np.int64), warp=requests.warp[[r]], line=requests.line[[r]],
                    array=requests.array[[r]], kind=requests.kind[[r]], lanes=one + n_rows)  # fmt: skip


def warp_paths(trace: Trace, warp: int) -> list[tuple[np.ndarray, dict[int, int]]]:
    """The groups of lanes of one warp that executed the same lines equally often (as far as the access
    log tells): (lanes, {line: accesses per lane}) for each group, the largest first."""
    first, end = warp_threads(trace, warp)
    lanes = np.arange(end - first)
    if trace.accesses is None:
        return [(lanes, {})]
    thread = trace.accesses["thread"]
    rows = np.flatnonzero((thread >= first) & (thread < end))
    lines, line_of_row = np.unique(trace.accesses["line"][rows], return_inverse=True)
    counts = np.zeros((len(lanes), len(lines)), np.int64)
    np.add.at(counts, (thread[rows] - first, line_of_row), 1)
    paths, group = np.unique(counts, axis=0, return_inverse=True)
    group = group.reshape(-1)
    result = [(lanes[group == g], {int(lines[k]): int(n) for k, n in enumerate(paths[g]) if n})
              for g in range(len(paths))]  # fmt: skip
    return sorted(result, key=lambda path: (-len(path[0]), int(path[0][0])))


def lane_list(lanes: np.ndarray) -> str:
    """Lanes in words: '0-31', 'even lanes 0-30', or the first few."""
    values = lanes.tolist()
    if len(values) > 1 and values == list(range(values[0], values[-1] + 1)):
        return f"lanes {values[0]}-{values[-1]}"
    if len(values) > 2 and all(b - a == 2 for a, b in zip(values, values[1:])):
        return f"{'even' if values[0] % 2 == 0 else 'odd'} lanes {values[0]}-{values[-1]}"
    shown = ", ".join(map(str, values[:6]))
    return f"lane{'s' if len(values) > 1 else ''} {shown}{', ...' if len(values) > 6 else ''}"
