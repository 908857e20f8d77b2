"""The GPU backend's stream timeline: each launch's implicit copies and its kernel, timed with CUDA events
(measured, with the card and the day). Marker `gpu`: skipped where no GPU is usable."""

import datetime
import os
import textwrap

import pytest

from gpuviz.core.fidelity import MEASURED
from gpuviz.core.options import RunOptions
from gpuviz.core.streams import COPY_IN, COPY_OUT, EVENT, KERNEL, StreamTimeline, measure
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


STREAMS_SCRIPT = """
import numpy as np
from numba import cuda

CHUNKS, M, STEPS = NCHUNKS, NUMBER, NSTEPS


@cuda.jit
def smooth(x, out, steps):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(steps):
            v = 0.5 * v + 1.0
        out[i] = v


host_in = cuda.pinned_array((CHUNKS, M), np.float32)
host_in[:] = 1.0
host_out = cuda.pinned_array((CHUNKS, M), np.float32)
streams = [cuda.stream() for _ in range(NSTREAMS)]
start, stop = cuda.event(), cuda.event()
start.record()
for k in range(CHUNKS):
    stream = streams[k % len(streams)]
    d_in = cuda.to_device(host_in[k], stream=stream)
    d_out = cuda.device_array(M, np.float32, stream=stream)
    smooth[M // 256, 256, stream](d_in, d_out, STEPS)
    d_out.copy_to_host(host_out[k], stream=stream)
stop.record()
cuda.synchronize()
print("elapsed", start.elapsed_time(stop))
assert (host_out > 1.0).all()
"""


def streams_timeline(tmp_path, streams: int) -> StreamTimeline:
    script = tmp_path / "streams.py"
    sizes = {"NCHUNKS": "4", "NUMBER": str(1 << (8 if SIMULATED else 22)), "NSTEPS": "4" if SIMULATED else "4096"}
    text = STREAMS_SCRIPT
    for name, value in (sizes | {"NSTREAMS": str(streams)}).items():
        text = text.replace(name, value)
    script.write_text(textwrap.dedent(text))
    session = Session(RunOptions(backend="gpu", level="threads"), keep_traces=True)
    run_script(script, session)
    return StreamTimeline.from_json(session.traces[-1].meta["streams"])


def test_four_streams_copies_and_kernels_are_on_their_streams_and_overlap(tmp_path):
    timeline = streams_timeline(tmp_path, 4)
    work = [s for s in timeline.spans if s.kind in (COPY_IN, COPY_OUT, KERNEL)]
    assert [(s.kind, s.stream) for s in work if s.stream == 2] == [(COPY_IN, 2), (KERNEL, 2), (COPY_OUT, 2)]
    assert {s.stream for s in work} == {1, 2, 3, 4} and measure(timeline, "streams") == 4
    assert all(s.pinned for s in work if s.kind != KERNEL)
    assert [s.kind for s in timeline.spans].count(EVENT) == 2 and len(timeline.elapsed) == 1
    if not SIMULATED:  # a chunk's copy ran while another chunk's kernel did: in one of three runs, since a GPU
        overlaps = [measure(timeline, "overlap")]  # that other processes share may serialise a run's work
        while overlaps[-1] <= 0 and len(overlaps) < 3:
            overlaps.append(measure(streams_timeline(tmp_path, 4), "overlap"))
        assert overlaps[-1] > 0, overlaps


def test_one_stream_runs_its_copies_and_kernels_one_after_another(tmp_path):
    timeline = streams_timeline(tmp_path, 1)
    work = [s for s in timeline.spans if s.kind in (COPY_IN, COPY_OUT, KERNEL)]
    assert len(work) == 12 and {s.stream for s in work} == {1}
    assert measure(timeline, "overlap") == 0
    assert all(a.end_us <= b.start_us + 1e-6 for a, b in zip(work, work[1:]))
