"""The GPU rewrite around CCCL's primitives, read from the code it generates (no GPU, no CCCL): at level
accesses each call is wrapped in two records in the call's slots, at level threads it stays as it is."""

from numba import cuda

from gpuviz.instrument.gpu_rewrite import GpuRewriter, SharedSites
from gpuviz.instrument.rewrite import build_program

from .test_gpu_rewrite_syncs import names_called


class Invocable:  # what cuda.cccl's primitives are, as far as the rewrite looks: an object of CCCL's module
    files: list[str] = []


Invocable.__module__ = "cuda.cccl.cooperative.experimental._types"
block_sum = Invocable()


class _Coop:
    scan = Invocable()


coop = _Coop()


def summed(values, got):
    t = cuda.threadIdx.x
    total = block_sum(values[t])
    got[t] = block_sum(total)
    coop.scan(total)


def _build(accesses: bool):
    sites = SharedSites()
    program = build_program(summed, GpuRewriter, accesses=accesses, sites=sites, ndims={"values": 1, "got": 1})
    return names_called(program.kernel.code), sites


def test_each_cccl_call_is_wrapped_in_a_write_and_a_read_of_its_slots():
    names, sites = _build(accesses=True)
    assert names.count("_gv_access") == 2 * 3 and names.count("block_sum") == 2 and names.count("scan") == 1
    slots = [(site.name, site.per_thread) for site in sites.sites]
    assert slots == [("block_sum", True), ("coop_scan", True)]  # one array a callee, named as one word
    line = summed.__code__.co_firstlineno + 2
    assert [kind for at, kind in sites.accesses if at == line] == [0, 1, 0]  # values[t], then the call's two
    shape, dtype = sites.describe(sites.sites[0], threads_per_block=96)
    assert shape == (96,) and dtype == "float64"


def test_level_threads_leaves_cccl_calls_as_they_are():
    names, sites = _build(accesses=False)
    assert "_gv_access" not in names and names.count("block_sum") == 2 and not sites.sites
