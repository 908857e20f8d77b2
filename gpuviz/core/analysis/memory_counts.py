"""The memory report's totals in plain words, each with the Nsight Compute metric it corresponds to
(bench/ncu_compare.py holds them against ncu's on a GPU; docs/memory.md has the table)."""

from __future__ import annotations

# (space, access kind, figure): (plain name, ncu metric or None, what is not modelled or None).
# Kinds are the trace's: read (ncu's op_ld), write (op_st), atomic (op_atom and op_red).
ATOMICS = ("ncu counts atomics as op_atom, or op_red where the old value is unused, and serves them in "
           "the L2 or the atomic unit")  # fmt: skip
VECTOR = ("a request is one source access of a warp: where the compiler merges a thread's adjacent "
          "accesses into one wider access (LDS.128, LDG.64), the hardware makes fewer requests and "
          "wavefronts")  # fmt: skip
_NCU = {"global": ("l1tex__t_{what}_pipe_lsu_mem_global_op_{op}.sum", ("requests", "sectors")),
        "shared": (None, ("requests", "wavefronts", "bank_conflicts"))}  # fmt: skip
_SHARED = {"requests": "smsp__sass_inst_executed_op_shared_{op}.sum",
           "wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum",
           "bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"}  # fmt: skip
_OPS = {"read": ("ld", "load"), "write": ("st", "store"), "atomic": (None, "atomic")}
# Constant memory is read only. Its turns are what Nsight Compute counts at the indexed constant cache
# (IDC), whose requests are serialised one per distinct address; not yet held against ncu on a GPU.
CONSTANT = ("ncu's idc__requests also counts the kernel's other indexed constant reads, and a constant index the "
            "compiler folds into the instruction makes no request; not yet compared with ncu on a GPU")  # fmt: skip
_CONST = {("const", "read", "requests"): ("constant load requests", None, None),
          ("const", "read", "turns"): ("constant load turns", "idc__requests.sum", CONSTANT)}  # fmt: skip


def _metrics() -> dict[tuple[str, str, str], tuple[str, str | None, str | None]]:
    table = {}
    for space, (pattern, whats) in _NCU.items():
        for kind, (op, word) in _OPS.items():
            for what in whats:
                name = f"{space} {word} {what.replace('_', ' ')}"
                if op is None:
                    table[(space, kind, what)] = (name, None, ATOMICS)
                    continue
                ncu = (pattern or _SHARED[what]).format(what=what, op=op)
                table[(space, kind, what)] = (name, ncu, VECTOR if what in ("requests", "wavefronts") else None)
    return {**table, **_CONST}


METRICS = _metrics()


def memory_counts(lines: list[dict]) -> list[dict]:
    """Every figure of METRICS, summed over the report's line rows: {"figure", "name", "ncu", "value",
    "not_modelled"}. A figure no access made is 0 (ncu says 0 too). `not_modelled` says what of the
    hardware's count gpuviz does not model (None: the figure is the hardware's, measured equal)."""
    totals = dict.fromkeys(METRICS, 0)
    for row in lines:
        for figure in ("requests", "sectors", "wavefronts", "bank_conflicts", "turns"):
            key = (row["space"], row["kind"], figure)
            if key in totals and row.get(figure) is not None:
                totals[key] += row[figure]
    return [{"figure": "_".join(key), "name": name, "ncu": ncu, "value": int(totals[key]), "not_modelled": note}
            for key, (name, ncu, note) in METRICS.items()]  # fmt: skip


def count_of(report: dict, name: str) -> int | None:
    """One figure's value by its plain name ("global load sectors"), or None."""
    return next((c["value"] for c in report.get("counts") or [] if c["name"] == name), None)
