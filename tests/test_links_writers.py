"""links.writers: the last writer and the count of distinct plain writers per element, the same
whether the pairs are counted in a table or by sorting."""

import numpy as np
import pytest

from gpuviz.core.analysis import links
from gpuviz.core.trace.columns import ATOMIC, READ, WRITE
from gpuviz.core.trace.model import Trace


def _trace(thread, index, kind) -> Trace:
    n = len(thread)
    accesses = {"thread": np.asarray(thread, np.int32), "array": np.zeros(n, np.int16),
                "index": np.asarray(index, np.int64), "kind": np.asarray(kind, np.int8),
                "line": np.ones(n, np.int32), "epoch": np.zeros(n, np.int32), "value": np.zeros(n)}  # fmt: skip
    return Trace(meta={"grid": [4, 1, 1], "block": [8, 1, 1]}, threads={"warp": np.zeros(32, np.int32)},
                 accesses=accesses)  # fmt: skip


def _reference(thread, index, kind, size):
    last = np.full(size, -1)
    writers = [set() for _ in range(size)]
    for t, i, k in zip(thread, index, kind):
        if k != READ:
            last[i] = t
        if k == WRITE:
            writers[i].add(t)
    return last, np.array([len(w) for w in writers])


@pytest.mark.parametrize("table_max", [0, links.PAIR_TABLE_MAX])  # sorted pairs, then the table
def test_writers_match_a_plain_loop(monkeypatch, table_max) -> None:
    monkeypatch.setattr(links, "PAIR_TABLE_MAX", table_max)
    rng = np.random.default_rng(3)
    thread = rng.integers(5, 32, 400)
    index = rng.integers(0, 6, 400)
    kind = rng.choice([READ, WRITE, ATOMIC], 400)
    last, count = links.writers(_trace(thread, index, kind), 0, 7)
    want_last, want_count = _reference(thread, index, kind, 7)
    assert last.tolist() == want_last.tolist()
    assert count.tolist() == want_count.tolist()
    assert count.max() > 1 and count[6] == 0  # several writers somewhere, none on the last element


@pytest.mark.parametrize("table_max", [0, links.PAIR_TABLE_MAX])
def test_writers_of_one_block(monkeypatch, table_max) -> None:
    monkeypatch.setattr(links, "PAIR_TABLE_MAX", table_max)
    thread, index, kind = [1, 9, 10, 9, 2], [0, 0, 1, 1, 1], [WRITE, WRITE, WRITE, WRITE, WRITE]
    last, count = links.writers(_trace(thread, index, kind), 0, 2, block=1)  # threads 8..15
    assert last.tolist() == [9, 9]
    assert count.tolist() == [1, 2]
