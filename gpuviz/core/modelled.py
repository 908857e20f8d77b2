"""Library calls a trace holds as gpuviz's models (the simulator's stand-ins for linked device
functions): what each did, in words, for the log, `gpuviz info` and the code view."""

from __future__ import annotations


def modelled_calls(meta: dict) -> dict[int, str]:
    """Line -> what ran there as a model (one entry per line; calls on one line are joined). Entries a
    damaged or foreign trace holds in another form are left out."""
    calls: dict[int, str] = {}
    entries = meta.get("modelled")
    for call in entries if isinstance(entries, list) else []:
        if not (isinstance(call, dict) and isinstance(call.get("line"), int) and call["line"] > 0):
            continue
        text = f"{call.get('call', '?')}: {call.get('model', '?')}"
        line = call["line"]
        calls[line] = text if line not in calls or text in calls[line] else f"{calls[line]}; {text}"
    return calls


def modelled_notes(meta: dict) -> list[str]:
    """One line per modelled call: where, what the model computed, and that its accesses and time are
    the model's (on a GPU the library's own code runs, which gpuviz cannot see)."""
    return [f"line {line}: {text} - gpuviz's model (its accesses and time are the model's, not the library's)"
            for line, text in sorted(modelled_calls(meta).items())]  # fmt: skip
