"""The GPU rewrite marks grid syncs and syncwarps (with their masks) as well as block barriers."""

import dis
from types import CodeType

from numba import cuda

from gpuviz.instrument.gpu_rewrite import GpuRewriter, SharedSites
from gpuviz.instrument.rewrite import build_program


def synced(a, mask):
    g = cuda.cg.this_grid()
    a[0] = 1
    g.sync()
    cuda.syncwarp(mask)
    cuda.syncwarp()
    cuda.syncthreads()


def names_called(code: CodeType) -> list[str]:
    """Every global and attribute name the code loads, once per use."""
    names = [i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD")]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names += names_called(const)
    return names


def test_grid_syncs_and_syncwarps_leave_their_marks():
    program = build_program(synced, GpuRewriter, accesses=True, sites=SharedSites(), ndims={"a": 1})
    names = names_called(program.kernel.code)
    assert names.count("_gv_grid_epoch") == 1 and names.count("_gv_syncwarp") == 2
    assert names.count("_gv_epoch") == 1 and "syncwarp" not in names  # the hook makes the syncwarp itself


def test_level_threads_keeps_them_native():
    program = build_program(synced, GpuRewriter, accesses=False, sites=SharedSites(), ndims={"a": 1})
    names = names_called(program.kernel.code)
    assert "_gv_syncwarp" not in names and "_gv_grid_epoch" not in names and names.count("syncwarp") == 2


def fenced(a, count):
    a[0] = 1
    cuda.threadfence()
    cuda.atomic.add(count, 0, 1)
    cuda.threadfence_block()
    cuda.threadfence_system()
    cuda.atomic.add(count, 0, -1)
    cuda.atomic.max(a, 1, 3.0)


def test_device_wide_fences_leave_a_mark_and_counting_atomics_are_named():
    """threadfence and threadfence_system set the fence flag (threadfence_block orders nothing for another
    block); the line that adds a positive constant is the one whose updates the values order."""
    sites = SharedSites()
    program = build_program(fenced, GpuRewriter, accesses=True, sites=sites, ndims={"a": 1, "count": 1})
    names = names_called(program.kernel.code)
    assert names.count("_gv_fence_mark") == 2 and names.count("threadfence") == 1
    first = fenced.__code__.co_firstlineno
    assert sites.counting_lines() == [first + 3]
    plain = build_program(fenced, GpuRewriter, accesses=False, sites=SharedSites(), ndims={"a": 1, "count": 1})
    assert "_gv_fence_mark" not in names_called(plain.kernel.code)


def test_level_threads_runs_the_body_once_the_place_is_known():
    """The body sits under `_gv_placed` (hooks.py says why the compiler must not be left free to put
    the place's work between a racy load and its store); level accesses keeps its body as it is."""
    program = build_program(synced, GpuRewriter, accesses=False, sites=SharedSites(), ndims={"a": 1})
    names = [n for n in names_called(program.kernel.code) if n.startswith("_gv_") or n in ("syncthreads", "sync")]
    assert names[:2] == ["_gv_begin_threads", "_gv_placed"] and names[-1] == "_gv_end"
    assert names.count("_gv_placed") == 1 and names.index("syncthreads") > 1
    logged = build_program(synced, GpuRewriter, accesses=True, sites=SharedSites(), ndims={"a": 1})
    assert "_gv_placed" not in names_called(logged.kernel.code)
