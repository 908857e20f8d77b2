"""Legends say each thing once: a gradient whose ends read the same has one entry, repeated words are
left out, and a run of numbered entries shares its words (core/colors.py)."""

import numpy as np
import pytest

import gpuviz
from gpuviz.core.colors import coloring, distinct_entries, legend_groups

CONSTANT = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = {value}\n"


def labels(legend) -> list[str]:
    return [label for _, label in legend]


@pytest.mark.parametrize("value", ["2.0", "2.0 + cuda.grid(1) * 1e-9"])  # one value; values that read the same
def test_a_gradient_whose_ends_read_the_same_has_one_entry(value):
    trace = gpuviz.trace(CONSTANT.format(value=value), backend="sim")[1, 8](np.zeros(8))
    legend = coloring(trace, "value written").legend
    assert labels(legend) == ["value written 2"]  # every thread wrote: nothing is left unwritten


def test_a_gradient_names_its_two_ends_as_people_write_them():
    trace = gpuviz.trace(CONSTANT.format(value="cuda.grid(1) * 262144.5"), backend="sim")[1, 8](np.zeros(8))
    assert labels(coloring(trace, "value written").legend)[:2] == ["value written 0", "value written 1,835,011.5"]


def test_repeated_words_are_said_once_and_numbered_runs_share_theirs():
    red, green, blue, grey = (255, 0, 0), (0, 255, 0), (0, 0, 255), (99, 99, 99)
    legend = [(red, "block 0 (and every 12th after)"), (green, "block 1"), (blue, "block 1"), (grey, "never written"),
              (red, "never written")]  # fmt: skip
    assert distinct_entries(legend) == [(red, "block 0 (and every 12th after)"), (green, "block 1"),
                                        (grey, "never written")]  # fmt: skip
    assert legend_groups(legend) == [("block", [(red, "0 (and every 12th after)"), (green, "1")]),
                                     ("", [(grey, "never written")])]  # fmt: skip
    assert legend_groups([(red, "SM 3"), (grey, "not started yet")]) == [("", [(red, "SM 3")]),
                                                                          ("", [(grey, "not started yet")])]
