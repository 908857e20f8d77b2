"""Catalog entries as test parameters: the two lessons that run at their tutorial's full size
(vector-add-bounds: 2**24 + 11 threads; the race: [1024, 1024]) go to the slow lane in the tests
where they cost seconds. The fast lane keeps a small launch of each (tests/test_vector_engine.py)."""

import pytest

FULL_SIZE = ("vector-add-bounds", "the-race")


def entries(items) -> list:
    return [pytest.param(e, id=e.name, marks=[pytest.mark.slow] if e.slug in FULL_SIZE else []) for e in items]


def small_launch(entry, tmp_path, old: str, new: str):
    """The entry's script with one line of its launch made small (the same kernel and checks)."""
    text = entry.path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (entry.name, old)
    path = tmp_path / entry.path.name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path
