"""The memory analysis as text for people (what `gpuviz memory` prints)."""

from __future__ import annotations

HEADER = (
    f"{'line':>5}  {'array':<10} {'space':<6} {'kind':<6} {'requests':>8} {'lanes':>5} "
    f"{'sectors/req':>11} {'ideal':>6} {'efficiency':>10}  {'bank conflicts max/mean':>23}"
)


def percent(fraction: float | None) -> str:
    return "unknown" if fraction is None else f"{100 * fraction:.0f}%"


def occupancy_lines(report: dict) -> list[str]:
    theory, seen = report["occupancy"]["theoretical"], report["occupancy"]["measured"]
    unknown = f"; unknown: {', '.join(theory['unknown'])}" if theory.get("unknown") else ""
    if theory["blocks"] is None:
        first = f"occupancy  theoretical unknown (the device's limits are not in the trace{unknown})"
    else:
        first = (
            f"occupancy  theoretical {percent(theory['occupancy'])}: {theory['blocks']} blocks "
            f"({theory['warps']} warps) per SM, limited by {theory['limiter']}{unknown}"
        )
    schedule = report["occupancy"].get("schedule")
    second = (
        f"           measured    {percent(seen['occupancy'])}: at most {seen['blocks']} block(s) "
        f"({seen['warps']} warps) on one SM at once" + (f" (schedule {schedule})" if schedule else "")
    )
    return [first, second + few_blocks(report), f"           {register_words(theory)}"]


# Where a thread's register figure comes from, in the words the reports print (core/fidelity.py's labels).
REGISTER_SOURCES = {"compiled": "as numba compiled the kernel", "compiled with recording":
                    "of the recorded kernel: the kernel's own compile failed, so more than its own",
                    "estimated": "estimated from the source (model)"}  # fmt: skip


def register_words(theory: dict) -> str:
    """A thread's registers and local memory, and where the figures come from."""
    registers, source = theory.get("registers_per_thread"), theory.get("registers_from", "unknown")
    said = f"registers {registers} per thread, {REGISTER_SOURCES[source]}" if registers else "registers unknown"
    local = theory.get("local_per_thread", 0)
    where = "as compiled, spills included" if source.startswith("compiled") else "the kernel's local arrays"
    return said + (f"; local memory {local:,} bytes per thread ({where})" if local else "")


def few_blocks(report: dict) -> str:
    """Why the measured occupancy is low when the launch is too small to fill the SMs."""
    seen, theory = report["occupancy"]["measured"], report["occupancy"]["theoretical"]
    launched, sms = seen.get("blocks_in_launch"), seen.get("sm_count")
    if launched is None or sms is None or theory["blocks"] is None or launched >= sms * theory["blocks"]:
        return ""
    return f"; {launched} blocks cannot fill {sms} SMs of {theory['blocks']} blocks each"


def line_row(row: dict) -> str:
    banks = row["bank_conflict_degree"]
    conflicts = f"{banks['max']}-way / {banks['mean']:.2f}" if banks else "-"
    sectors, ideal = _number(row["sectors_per_request"]), _number(row["ideal_sectors_per_request"])
    efficiency = "-" if row["efficiency"] is None else percent(row["efficiency"])
    return (
        f"{row['line']:>5}  {row['array']:<10} {row['space']:<6} {row['kind']:<6} {row['requests']:>8} "
        f"{row['lanes_per_request']:>5.1f} {sectors:>11} {ideal:>6} {efficiency:>10}  {conflicts:>23}"
    )


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def array_row(row: dict) -> str:
    banks = row["bank_conflict_degree"]
    if banks:
        cost = f"bank conflicts up to {banks['max']}-way (mean {banks['mean']:.2f} per request)"
    else:
        cost = (f"{row['sectors_per_request']:.2f} sectors/request (ideal {row['ideal_sectors_per_request']:.2f}, "
                f"{percent(row['efficiency'])})")  # fmt: skip
    return f"  {row['array']:<10} {row['space']:<6} {row['requests']:>8} requests, {cost}"


def divergence_lines(div: dict) -> list[str]:
    lines = [
        f"divergence {div['diverged_warps']} of {div['warps']:,} warps{div.get('scope', '')} took more than one path "
        f"(at most {div['max_paths']} group(s) of lanes)"
    ]
    lines += [f"  line {d['line']}: lanes split in {d['split_warps']} of {d['warps']} warps"
              for d in div["lines"] if d["split_warps"]]  # fmt: skip
    return [*lines, f"  not known: {div['unknown']}"]


def format_memory(report: dict, kernel: str) -> str:
    """Occupancy, per-line and per-array coalescing and bank conflicts, and divergence."""
    out = [f"memory of {kernel}", *occupancy_lines(report)]
    if report.get("lines") is None:
        return "\n".join([*out, f"coalescing, bank conflicts, divergence: not known ({report.get('skipped')})"])
    if report.get("truncated"):
        out.append("note: the access log was truncated; requests near its end may miss lanes")
    out += ["", "per source line (one warp request = one warp's execution of one access site):", HEADER]
    out += [line_row(row) for row in report["lines"]]
    out += ["", "per array:"] + [array_row(row) for row in report["arrays"]]
    out += ["", *count_lines(report.get("counts") or [])]
    return "\n".join([*out, "", *divergence_lines(report["divergence"])])


def count_lines(counts: list[dict]) -> list[str]:
    """The totals, each with the Nsight Compute metric it corresponds to (atomics only when made)."""
    shown = [c for c in counts if c["ncu"] or c["value"]]
    if not shown:
        return []
    notes = list(dict.fromkeys(c["not_modelled"] for c in shown if c["not_modelled"]))
    lines = ["totals (the Nsight Compute metric each corresponds to; * marks what is not modelled):"]
    for c in shown:
        mark = "*" * (notes.index(c["not_modelled"]) + 1) if c["not_modelled"] else ""
        lines.append(f"  {c['name']:<28} {c['value']:>12,}  {c['ncu'] or 'no ncu metric'} {mark}".rstrip())
    return lines + [f"  {'*' * (k + 1)} not modelled: {note}" for k, note in enumerate(notes)]
