"""The memory report's totals in plain words, each with the Nsight Compute metric it corresponds to
(bench/ncu_compare.py holds them against ncu's on a GPU; docs/memory.md has the table)."""

from __future__ import annotations

# (space, access kind, figure): (plain name, ncu metric or None, what is not modelled or None).
# Kinds are the trace's: read (ncu's op_ld), write (op_st), atomic (op_atom and op_red).
_NOT_MODELLED_ATOMICS = ("ncu counts atomics as op_atom, or op_red where the old value is unused, "
                         "and serves them in the L2 or the atomic unit: not modelled")  # fmt: skip
METRICS: dict[tuple[str, str, str], tuple[str, str | None, str | None]] = {
    ("global", "read", "requests"): ("global load requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", None),
    ("global", "read", "sectors"): ("global load sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", None),
    ("global", "write", "requests"): ("global store requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                                      None),
    ("global", "write", "sectors"): ("global store sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", None),
    ("global", "atomic", "requests"): ("global atomic requests", None, _NOT_MODELLED_ATOMICS),
    ("global", "atomic", "sectors"): ("global atomic sectors", None, _NOT_MODELLED_ATOMICS),
    ("shared", "read", "requests"): ("shared load requests", "smsp__sass_inst_executed_op_shared_ld.sum", None),
    ("shared", "read", "wavefronts"): ("shared load wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                       None),
    ("shared", "read", "bank_conflicts"): ("shared load bank conflicts",
                                           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", None),
    ("shared", "write", "requests"): ("shared store requests", "smsp__sass_inst_executed_op_shared_st.sum", None),
    ("shared", "write", "wavefronts"): ("shared store wavefronts",
                                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", None),
    ("shared", "write", "bank_conflicts"): ("shared store bank conflicts",
                                            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", None),
    ("shared", "atomic", "requests"): ("shared atomic requests", None, _NOT_MODELLED_ATOMICS),
    ("shared", "atomic", "wavefronts"): ("shared atomic wavefronts", None, _NOT_MODELLED_ATOMICS),
    ("shared", "atomic", "bank_conflicts"): ("shared atomic bank conflicts", None, _NOT_MODELLED_ATOMICS),
}  # fmt: skip


def memory_counts(lines: list[dict]) -> list[dict]:
    """Every figure of METRICS, summed over the report's line rows: {"figure", "name", "ncu", "value",
    "not_modelled"}. A figure no access made is 0 (ncu says 0 too)."""
    totals = dict.fromkeys(METRICS, 0)
    for row in lines:
        for figure in ("requests", "sectors", "wavefronts", "bank_conflicts"):
            key = (row["space"], row["kind"], figure)
            if key in totals and row.get(figure) is not None:
                totals[key] += row[figure]
    return [{"figure": "_".join(key), "name": name, "ncu": ncu, "value": int(totals[key]), "not_modelled": note}
            for key, (name, ncu, note) in METRICS.items()]  # fmt: skip


def count_of(report: dict, name: str) -> int | None:
    """One figure's value by its plain name ("global load sectors"), or None."""
    return next((c["value"] for c in report.get("counts") or [] if c["name"] == name), None)
