"""The app's trace cache: bounded in count and bytes, least recently used out first, fresh after a rewrite."""

import os

import numpy as np
import pytest

import gpuviz
from gpuviz.app.control.trace_cache import TraceCache, trace_bytes
from gpuviz.core.errors import TraceFormatError

SRC = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"


@pytest.fixture
def paths(tmp_path):
    made = []
    for i in range(4):
        trace = gpuviz.trace(SRC, backend="sim")[1, 32](np.zeros(32 * (i + 1), np.float32))
        made.append(trace.save(tmp_path / f"{i}.npz"))
    return made


class CountingLoader:
    def __init__(self):
        self.loads = []

    def __call__(self, path):
        self.loads.append(path.name)
        return gpuviz.load(path)


def test_a_trace_is_loaded_once_and_the_oldest_goes_first(paths):
    loader = CountingLoader()
    cache = TraceCache(max_traces=2, loader=loader)
    first = cache.get(paths[0])
    assert cache.get(paths[0]) is first and loader.loads == ["0.npz"]
    cache.get(paths[1])
    cache.get(paths[0])  # 0 is now the most recently used
    cache.get(paths[2])
    assert paths[0] in cache and paths[1] not in cache and paths[2] in cache and len(cache) == 2
    cache.get(paths[1])
    assert loader.loads == ["0.npz", "1.npz", "2.npz", "1.npz"]


def test_the_byte_bound_keeps_the_newest_even_alone(paths):
    sizes = [trace_bytes(gpuviz.load(p)) for p in paths]
    cache = TraceCache(max_traces=10, max_bytes=sizes[2] + sizes[3])
    for path in paths:
        cache.get(path)
    assert [p in cache for p in paths] == [False, False, True, True] and cache.nbytes == sizes[2] + sizes[3]
    tiny = TraceCache(max_bytes=1)
    tiny.get(paths[0])
    assert len(tiny) == 1
    tiny.get(paths[1])
    assert paths[1] in tiny and len(tiny) == 1


def test_a_rewritten_file_is_loaded_again(paths):
    loader = CountingLoader()
    cache = TraceCache(loader=loader)
    cache.get(paths[0])
    trace = gpuviz.trace(SRC, backend="sim")[1, 32](np.zeros(64, np.float32))
    trace.save(paths[0])
    os.utime(paths[0], ns=(1, 1))  # a different stamp even on a coarse clock
    assert cache.get(paths[0]).before("a").size == 64 and loader.loads == ["0.npz", "0.npz"]


def test_a_failed_load_caches_nothing(tmp_path, paths):
    cache = TraceCache()
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    with pytest.raises(TraceFormatError):
        cache.get(bad)
    assert bad not in cache and len(cache) == 0
    cache.get(paths[0])
    cache.discard(paths[0])
    assert len(cache) == 0
    with pytest.raises(ValueError):
        TraceCache(max_traces=0)


def test_loading_threads_share_one_bounded_cache(paths):
    from concurrent.futures import ThreadPoolExecutor

    cache = TraceCache(max_traces=2)
    with ThreadPoolExecutor(4) as pool:
        traces = list(pool.map(cache.get, paths * 3))
    assert len(cache) == 2 and all(t.before("a").size == 32 * (i % 4 + 1) for i, t in enumerate(traces))
