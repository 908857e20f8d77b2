"""The documents reporting commands print with --json, built from a trace (pure; the schemas are in
core/json_schema.py, the fields explained in docs/json.md)."""

from __future__ import annotations

from pathlib import Path

from gpuviz.core.analysis.memcheck import format_errors
from gpuviz.core.findings import Findings, findings_of
from gpuviz.core.json_schema import envelope
from gpuviz.core.modelled import modelled_notes
from gpuviz.core.trace.model import Trace


def trace_document(command: str, trace: Trace, path: str | Path, body: dict, exit_: dict) -> dict:
    """A document about one trace file: the envelope, which trace and launch, the command's body, the launch's
    findings and the exit status the command gives."""
    head = {**envelope(command), "trace": str(path), "kernel": trace.kernel, "launch": int(trace.meta.get("launch", 0))}
    return {**head, **body, "findings": findings_of(trace).to_json(), "exit": exit_}


def exit_json(status: int, failed_on: list[str]) -> dict:
    return {"status": int(status), "failed_on": list(failed_on)}


def info_body(trace: Trace) -> dict:
    """What `gpuviz info` prints, as data."""
    meta, threads = trace.meta, trace.threads
    blocks = meta.get("recorded_blocks")  # accesses of these blocks only (None: of every block)
    span = int(threads["t_end"].max() - threads["t_start"].min()) if trace.n_threads else 0
    outcomes = meta.get("outcomes") or {}
    notes = [*meta.get("unrecorded", []), *modelled_notes(meta)]
    return {
        "backend": meta["backend"],
        "device": meta["device"],
        "sm_count": int(meta["sm_count"]),
        "grid": list(trace.grid),
        "block": list(trace.block),
        "threads": trace.n_threads,
        "sms_used": len(set(threads["sm"].tolist())),
        "span": span,
        "time_unit": meta["time_unit"],
        "level": meta.get("level"),
        "accesses": 0 if trace.accesses is None else len(trace.accesses["thread"]),
        "recorded_blocks": None if blocks is None else [int(b) for b in blocks],
        "truncated": trace.truncated,
        "arrays": [
            {"name": a["name"], "space": a["space"], "dtype": a["dtype"], "shape": list(a["shape"])}
            for a in meta.get("arrays", [])
        ],
        "runs": outcomes.get("runs"),
        "warnings": list(meta.get("warnings", [])),
        "notes": notes,
        "errors": format_errors(trace),
    }


def findings_total(found: list[Findings]) -> Findings:
    """All launches' findings added up (races None when no launch was looked at for them)."""
    races = [f.races for f in found if f.races is not None]
    return Findings(sum(races) if races else None, sum(f.memory for f in found), sum(f.barrier for f in found),
                    sum(f.warp_sync for f in found))  # fmt: skip
