"""Plain (unrecorded) outcomes next to the recorded result: a pure function of the trace."""

import numpy as np

import gpuviz
from gpuviz.core.analysis.outcomes import plain_vs_recorded


def test_plain_outcomes_are_compared_with_the_recorded_result():
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] += 1\n"
    trace = gpuviz.trace(source, backend="sim")[1, 8](np.zeros(8, np.float32))
    assert plain_vs_recorded(trace) == []
    plain = np.ones(8, np.float32)
    plain[[2, 5]] = 7
    trace.outcomes["a.plain"] = plain
    (line,) = plain_vs_recorded(trace)
    assert line == "a: recorded [1, 1, 1, 1, ...]; without recording [1, 1, 7, 1, ...] (2 of 8 elements differ)"
    trace.outcomes["a.plain"] = np.ones(8, np.float32)
    assert plain_vs_recorded(trace)[0].endswith("(the same result)")
