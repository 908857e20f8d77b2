"""Numbers read as people write them (core/numbers.py, no Qt): thousands separated, no exponent for
ordinary magnitudes, the decimals a number needs."""

import math

import numpy as np
import pytest

from gpuviz.core.numbers import number


@pytest.mark.parametrize(
    "value, written",
    [
        (1048576, "1,048,576"),
        (1048576.0, "1,048,576"),
        (np.float32(1048576), "1,048,576"),
        (np.int64(2**62 + 1), "4,611,686,018,427,387,905"),  # exact: never through a float
        (np.uint8(200), "200"),
        (-3298531737600.0, "-3,298,531,737,600"),
        (0.5, "0.5"),
        (np.float32(4.5), "4.5"),
        (1672.25, "1,672.25"),
        (np.float32(0.1), "0.1"),  # a float32's tail is noise, not digits to print
        (1 / 3, "0.3333"),
        (123456.7, "123,456.7"),
        (-0.0, "0"),
        (True, "1"),
        (np.bool_(False), "0"),
        (1e-07, "1e-07"),  # far from 1: the exponent is what reads
        (2.4e20, "2.4e+20"),
        (math.nan, "not set"),
        (-math.inf, "minus infinity"),
        (complex(2, -0.5), "2-0.5j"),
        (np.complex64(3), "3"),
    ],
)
def test_a_number_reads_as_people_write_it(value, written):
    assert number(value) == written


@pytest.mark.parametrize("value", [1048576.0, 4.5, 1672.25, 65536 * 32.0, 0.25, 12345.678])
def test_ordinary_magnitudes_never_take_an_exponent_and_read_back_the_same(value):
    text = number(value)
    assert "e" not in text
    assert float(text.replace(",", "")) == pytest.approx(value, abs=5e-5)  # four decimals at most
