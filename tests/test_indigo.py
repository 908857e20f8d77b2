"""The Indigo race suite (bench/indigo): the translator takes every kernel, and a fixed list of 45 kernels
(every pattern, every label, every construct) gets its verdict on the tiny input DAG_5n_5e at the
artifact's launch. The verdict must follow the labels, and agree with a brute-force search of the log
for a racing pair: a race-bug kernel passes only where its race did not happen in this run."""

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from indigo.inputs import arguments, glibc_rand, graph_path  # noqa: E402
from indigo.score import run_kernel  # noqa: E402
from indigo.suite import RACE_BUGS, all_kernels, by_name, manifest  # noqa: E402
from indigo.translate import Untranslatable, translate  # noqa: E402

RACES_FOUND = [
    "conditional_edge_neighbor_guardBug_atomicBug",
    "conditional_edge_neighbors_atomicBug_break",
    "conditional_edge_neighbors_block_cond_syncBug",
    "conditional_edge_neighbors_block_shfl_guardBug",
    "conditional_edge_neighbors_warp_guardBug",
    "conditional_vertex_neighbors_block_atomicBug",
    "conditional_vertex_neighbors_warp_persistent_atomicBug",
    "path_compression_raceBug",
    "pull_node_neighbors_block_cond_syncBug",
    "push_node_neighbor_last_atomicBug",
    "push_node_neighbors_persistent_atomicBug",
    "push_node_neighbors_block_persistent_reverse_atomicBug",
    "push_node_neighbors_warp_atomicBug",
]
# Race bugs whose race does not happen on DAG_5n_5e: the input never takes the racing path (in this DAG
# every edge goes to a lower vertex, so `i < nei` never holds, and no two vertices share a target twice).
NOT_ON_THIS_INPUT = [
    "conditional_vertex_neighbor_atomicBug",
    "populate_worklist_neighbor_atomicBug",
    "populate_worklist_neighbors_block_atomicBug",
    "populate_worklist_neighbors_warp_atomicBug",
    "push_node_neighbors_cond_atomicBug",
    "conditional_edge_neighbors_warp_cond_guardBug",
]
NO_BUG = [
    "conditional_edge_neighbor",
    "conditional_edge_neighbors_break",
    "conditional_edge_neighbors_block_shfl",
    "conditional_edge_neighbors_warp_cond",
    "conditional_vertex_neighbor_last",
    "conditional_vertex_neighbors",
    "conditional_vertex_neighbors_block",
    "conditional_vertex_neighbors_warp",
    "path_compression",
    "path_compression_traverse",
    "populate_worklist_neighbor",
    "populate_worklist_neighbors_break",
    "populate_worklist_neighbors_block_persistent",
    "populate_worklist_neighbors_warp",
    "pull_node_neighbor_cond",
    "pull_node_neighbors",
    "pull_node_neighbors_block_shfl",
    "pull_node_neighbors_warp",
    "push_node_neighbor",
    "push_node_neighbors_reverse",
    "push_node_neighbors_block_cond",
    "push_node_neighbors_warp_persistent",
]
OUT_OF_BOUNDS = [
    "conditional_edge_neighbors_boundsBug",
    "pull_node_neighbors_boundsBug_break",
    "conditional_edge_neighbor_boundsBug_last",
    "push_node_neighbors_boundsBug_atomicBug",
]
LISTED = RACES_FOUND + NOT_ON_THIS_INPUT + NO_BUG + OUT_OF_BOUNDS


def test_every_kernel_translates_and_the_manifest_counts_the_labels():
    data = manifest()
    assert data["kernels"] == 590 and data["untranslated"] == []
    assert data["groups"] == {"race": 266, "bounds": 144, "clean": 180}


def test_the_list_covers_every_pattern_label_and_construct():
    kernels = by_name(LISTED)
    assert len(kernels) >= 40
    assert {k.pattern for k in kernels} == {k.pattern for k in all_kernels()}
    assert {bug for k in kernels for bug in k.bugs} == {*RACE_BUGS, "boundsBug"}
    assert all(k.race_bug for k in by_name(RACES_FOUND + NOT_ON_THIS_INPUT))
    assert not any(k.bugs for k in by_name(NO_BUG))
    sources = "".join(k.path.read_text() for k in kernels)
    constructs = ["__shfl_xor_sync", "__shfl_up_sync", "__ballot_sync", "__any_sync", "__syncthreads_or",
                  "__syncthreads_count", "atomicRead", "atomicAdd", "atomicMin", "atomicMax", "++;"]  # fmt: skip
    assert [c for c in constructs if c not in sources] == []


@pytest.mark.parametrize("name", LISTED)
def test_verdict_on_the_tiny_input(name):
    (kernel,) = by_name([name])
    verdict = run_kernel(kernel, "DAG_5n_5e")
    assert not verdict.failed, verdict.failed
    # the analysis neither misses a racing pair of the log nor reports one that is not there
    assert verdict.flagged is verdict.log_has_conflict, verdict.example
    if name in OUT_OF_BOUNDS:
        assert verdict.memory_errors > 0
    else:
        assert verdict.memory_errors == 0
        assert verdict.flagged is (name in RACES_FOUND), verdict.example


def test_hirace_instrumentation_is_stripped_to_the_same_kernel():
    instrumented = (Path(__file__).parent / "data" / "indigo" / "path_compression_hirace_raceBug.cu").read_text()
    (plain,) = by_name(["path_compression_raceBug"])
    script, stripped = translate(instrumented)
    assert stripped and script == translate(plain.path.read_text())[0]


def test_the_translator_refuses_with_the_reason():
    kernel = by_name(["push_node_neighbors"])[0].path.read_text()
    with pytest.raises(Untranslatable, match="continue in a loop"):
        translate(kernel.replace("int nei = nlist[j];", "int nei = nlist[j]; continue;"))
    with pytest.raises(Untranslatable, match="data_t is float"):
        translate(kernel.replace("typedef int data_t;", "typedef float data_t;"))
    with pytest.raises(Untranslatable, match="a call of report"):
        translate(kernel.replace("int nei = nlist[j];", "int nei = nlist[j]; report(nei);"))


def test_inputs_are_the_c_host_codes():
    assert glibc_rand(3).tolist() == [1804289383, 846930886, 1681692777]  # glibc's rand() after srand(1)
    nindex, nlist, data1, data2, numv = arguments(graph_path("DAG_5n_5e"))
    assert nindex.tolist() == [0, 0, 0, 2, 4, 5] and nlist.tolist() == [0, 1, 0, 1, 1] and numv == 5
    assert data1[0] == data2[0] == 0 and data1.tolist()[1:] == [v % 5 for v in glibc_rand(4).tolist()]
    with pytest.raises(ValueError, match="the inputs are: DAG_100n_200e"):
        graph_path("DAG_1n")


def test_a_racy_kernel_loses_writes_and_ends_unlike_a_serial_run():
    (kernel,) = by_name(["push_node_neighbors_atomicBug"])
    verdict = run_kernel(kernel, "DAG_5n_5e", serial=True)
    # data1[nei] = min(data1[nei], data2[i]) by several threads of one nei: some writes are lost
    ((array, elements, writes),) = verdict.lost
    assert array == "data1" and writes >= elements >= 1
    # an element no serial order gives must have lost a write
    ((array, unlike),) = verdict.unlike_serial
    assert array == "data1" and 1 <= unlike <= elements
