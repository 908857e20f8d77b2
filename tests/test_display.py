"""Numbers read as people write them, and `code` shows as code: core/display.py, with no Qt."""

import math

import numpy as np
import pytest

from gpuviz.core.display import code_as_html, code_as_plain, format_number


@pytest.mark.parametrize(
    "value, written",
    [
        (1048576, "1,048,576"),
        (1048576.0, "1,048,576"),
        (np.float32(1048576), "1,048,576"),
        (np.int64(2**62), "4,611,686,018,427,387,904"),  # exact: never through a float
        (-3298531737600.0, "-3,298,531,737,600"),
        (0.5, "0.5"),
        (np.float32(4.5), "4.5"),
        (1672.25, "1,672.25"),
        (np.float32(0.1), "0.1"),  # a float32's tail is noise, not digits to print
        (1 / 3, "0.333333"),
        (123456.7, "123,456.7"),
        (-0.0, "0"),
        (0, "0"),
        (True, "1"),
        (1e-07, "1e-07"),  # far from 1: the exponent is what reads
        (2.4e20, "2.4e+20"),
        (math.nan, "NaN"),
        (-math.inf, "-inf"),
        (complex(2, -0.5), "2-0.5j"),
        (np.complex64(3), "3"),
    ],
)
def test_a_number_reads_as_people_write_it(value, written):
    assert format_number(value) == written


@pytest.mark.parametrize("value", [1048576.0, 4.5, 1672.25, 65536 * 32.0, 0.25, 12345.678])
def test_ordinary_magnitudes_never_take_an_exponent_and_read_back_the_same(value):
    text = format_number(value)
    assert "e" not in text
    assert float(text.replace(",", "")) == pytest.approx(value, rel=5e-6)  # six significant digits


def test_fewer_digits_where_room_is_short():
    assert format_number(1 / 3, 4) == "0.3333" and format_number(1672.25, 4) == "1,672.2"


def test_code_in_backticks_is_code_in_rich_text_and_plain_words_in_plain_text():
    text = "Set repeat (or `gpuviz run --repeat N`) & see <why>"
    assert code_as_html(text) == "Set repeat (or <code>gpuviz run --repeat N</code>) &amp; see &lt;why&gt;"
    assert code_as_plain(text) == "Set repeat (or gpuviz run --repeat N) & see <why>"
    assert "`" not in code_as_html("`a[0]` and `b`") and code_as_plain("no code") == "no code"
