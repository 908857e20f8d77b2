"""The GPU backend's stream timeline: each launch's implicit copies and its kernel, timed with CUDA events
(measured, with the card and the day). Marker `gpu`: skipped where no GPU is usable."""

import datetime
import os
import textwrap

import pytest

from gpuviz.core.fidelity import MEASURED
from gpuviz.core.options import RunOptions
from gpuviz.core.streams import COPY_IN, COPY_OUT, KERNEL, StreamTimeline, measure
from gpuviz.program.script import run_script
from gpuviz.run.session import Session

pytestmark = pytest.mark.gpu
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"  # numba's simulator: events time nothing

SCRIPT = """
import numpy as np
from numba import cuda


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


N = NUMBER
a = np.ones(N, np.float32); b = np.ones(N, np.float32); out = np.zeros(N, np.float32)
add[N // 256, 256](a, b, out)
add[N // 256, 256](a, b, out)
assert (out == 2).all()
"""
N = 1 << (8 if SIMULATED else 20)


def test_each_launch_on_numpy_arrays_is_copies_in_a_kernel_and_copies_out_measured(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(SCRIPT).replace("NUMBER", str(N)))
    session = Session(RunOptions(backend="gpu", level="threads"), keep_traces=True)
    run_script(script, session)
    timeline = StreamTimeline.from_json(session.traces[-1].meta["streams"])
    first = StreamTimeline.from_json(session.traces[0].meta["streams"])
    assert timeline.fidelity == MEASURED and timeline.device == session.backend.device_facts()["name"]
    assert timeline.date == datetime.date.today().isoformat()
    kinds = [s.kind for s in timeline.spans]
    assert kinds == ([COPY_IN] * 3 + [KERNEL] + [COPY_OUT] * 3) * 2
    assert len(first.spans) == 7  # a launch's trace carries the timeline up to its end
    assert all(a.end_us <= b.start_us + 1e-6 for a, b in zip(timeline.spans, timeline.spans[1:]))
    if not SIMULATED:
        assert all(s.us > 0 for s in timeline.spans)
        assert measure(timeline, "copies") > 0 and measure(timeline, "kernels") > 0
        assert [s.nbytes for s in timeline.spans[:3]] == [4 * N] * 3
