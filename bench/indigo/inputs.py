"""The Indigo suite's inputs, as its C host code builds them: the graph of an ECL file, and the two data
arrays filled by glibc's rand() from its default seed, so every kernel sees the artifact's very values.

This file depends on NumPy alone: the translator copies it beside the scripts it writes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

GRAPHS = Path(__file__).resolve().parent / "inputs"
BLOCKS, THREADS = 1024, 256  # the artifact's launch (hirace_experiments.py)


def read_graph(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(nindex, nlist) of an ECL graph file: node count, edge count, then both lists, as int32."""
    words = np.fromfile(path, dtype="<i4")
    if len(words) < 2:
        raise ValueError(f"{path}: not an ECL graph (it needs a node count and an edge count)")
    nodes, edges = int(words[0]), int(words[1])
    if nodes < 1 or edges < 0 or len(words) != 2 + nodes + 1 + edges:
        raise ValueError(f"{path}: not an ECL graph ({nodes} nodes, {edges} edges, {len(words)} words)")
    return words[2 : 3 + nodes].copy(), words[3 + nodes :].copy()


def glibc_rand(count: int, seed: int = 1) -> np.ndarray:
    """The first `count` values of glibc's rand() after srand(seed): its additive feedback generator
    (TYPE_3, r[i] = r[i-3] + r[i-31]), whose first 344 outputs are thrown away."""
    state = [seed]
    for i in range(1, 31):
        state.append((16807 * state[i - 1]) % 2147483647)
    state += state[:3]  # r[31..33] = r[0..2]
    for i in range(34, 344 + count):
        state.append((state[i - 31] + state[i - 3]) & 0xFFFFFFFF)
    return np.array([value >> 1 for value in state[344:]], np.int64)


def arguments(path: str | Path) -> tuple:
    """The kernel's arguments (nindex, nlist, data1, data2, numv) as the C host code makes them: the
    data arrays hold max(nodes, edges) values, data1[i] = rand() % nodes and then data2[i] = rand() %
    edges for i >= 1 (element 0 is 0), and a graph without edges gets one (unused) edge slot."""
    nindex, nlist = read_graph(path)
    nodes, edges = len(nindex) - 1, max(len(nlist), 1)
    if len(nlist) == 0:
        nlist = np.zeros(1, np.int32)
    size = max(nodes, edges)
    rand = glibc_rand(2 * (size - 1))
    data1, data2 = np.zeros(size, np.int32), np.zeros(size, np.int32)
    data1[1:] = rand[: size - 1] % nodes
    data2[1:] = rand[size - 1 :] % edges
    return nindex, nlist, data1, data2, np.int32(nodes)


def graph_path(name: str) -> Path:
    """A vendored input by name (DAG_5n_5e or DAG_5n_5e.egr)."""
    path = GRAPHS / (name if name.endswith(".egr") else f"{name}.egr")
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in GRAPHS.glob("*.egr")))
        raise ValueError(f"no Indigo input named {name!r}; the inputs are: {known}")
    return path
