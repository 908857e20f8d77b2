"""The JSON that reporting commands print with --json (`run`, `races`, `memory`, `info`, `demo`): one versioned
JSON Schema per command, and the envelope every document starts with. docs/json.md explains each field;
tests/test_json_reports.py holds every command's output to its schema and the docs to the schemas.

Versioning: VERSION goes up when a field is removed or changes its meaning; new fields may appear within a
version (the schemas allow extra properties), so a reader should ignore what it does not know."""

from __future__ import annotations

from gpuviz.core.version import __version__

VERSION = 1
COMMANDS = ("run", "races", "memory", "info", "demo")

_INT, _NUM, _STR, _BOOL = {"type": "integer"}, {"type": "number"}, {"type": "string"}, {"type": "boolean"}
_NULL_INT, _NULL_STR = {"type": ["integer", "null"]}, {"type": ["string", "null"]}
_DIMS = {"type": "array", "items": _INT, "minItems": 3, "maxItems": 3}
_LINES = {"type": "array", "items": _STR}


def _object(properties: dict, required: tuple[str, ...] | None = None) -> dict:
    """An object with these properties, all required unless named otherwise; others are allowed."""
    return {"type": "object", "properties": properties, "required": list(properties if required is None else required)}


def _nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


FINDINGS = _object({"races": _NULL_INT, "memory_errors": _INT, "barrier_divergence": _INT,
                    "warp_sync_divergence": _INT})  # fmt: skip
LAUNCH = _object({"index": _INT, "kernel": _STR, "grid": _DIMS, "block": _DIMS, "threads": _INT, "backend": _STR,
                  "engine": _STR, "seconds": _NUM, "trace": _NULL_STR, "findings": FINDINGS})  # fmt: skip
EXIT = _object({"status": _INT, "failed_on": {"type": "array", "items": {"enum": ["races", "memory", "barrier",
                                                                                     "warp-sync"]}},
                "error": _STR}, required=("status", "failed_on"))  # fmt: skip
_PARTY = _object({"block": _DIMS, "thread": _DIMS, "line": _INT, "access": {"enum": ["read", "write", "atomic"]}})
RACE = _object({"array": _STR, "space": {"enum": ["global", "shared"]}, "index": _INT, "block": _DIMS,
                "kind": {"enum": ["RAW", "WAR", "WAW"]}, "scope": {"enum": ["same warp", "same block",
                                                                             "different blocks"]},
                "first": _PARTY, "second": _PARTY, "pairs": _INT},
               required=("array", "space", "index", "kind", "scope", "first", "second", "pairs"))  # fmt: skip
_TRACE_HEAD = {"trace": _STR, "kernel": _STR, "launch": _INT}
_MEMORY_ROW = _object({"array": _STR, "space": {"enum": ["global", "shared", "const"]}, "requests": _INT,
                       "sectors_per_request": {"type": ["number", "null"]},
                       "bank_conflict_degree": _nullable(_object({"max": _INT, "mean": _NUM})),
                       "turns_per_request": _nullable(_object({"max": _INT, "mean": _NUM}))})  # fmt: skip
_MEMORY_LINE = {**_MEMORY_ROW, "properties": {**_MEMORY_ROW["properties"], "line": _INT,
                                              "kind": {"enum": ["read", "write", "atomic"]}},
                "required": [*_MEMORY_ROW["required"], "line", "kind"]}  # fmt: skip


def _document(command: str, properties: dict) -> dict:
    head = {"schema": {"const": f"gpuviz.{command}"}, "version": {"const": VERSION}, "gpuviz": _STR}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": f"gpuviz {command} --json",
            **_object({**head, **properties})}  # fmt: skip


SCHEMAS = {
    "run": _document(
        "run", {"script": _STR, "out": _STR, "launches": {"type": "array", "items": LAUNCH}, "exit": EXIT}
    ),
    "races": _document(
        "races",
        {
            **_TRACE_HEAD,
            "racy": _BOOL,
            "races": {"type": "array", "items": RACE},
            "benign": {"type": "array", "items": RACE},
            "truncated": _BOOL,
            "locations": _INT,
            "racy_arrays": _LINES,
            "barrier_divergence": _LINES,
            "findings": FINDINGS,
            "exit": EXIT,
        },
    ),
    "memory": _document(
        "memory",
        {
            **_TRACE_HEAD,
            "occupancy_theoretical": _NUM,
            "occupancy_measured": _NUM,
            "occupancy_limiter": _STR,
            "occupancy": {"type": "object"},
            "lines": _nullable({"type": "array", "items": _MEMORY_LINE}),
            "arrays": _nullable({"type": "array", "items": _MEMORY_ROW}),
            "counts": _nullable({"type": "array", "items": {"type": "object"}}),
            "divergence": _nullable({"type": "object"}),
            "findings": FINDINGS,
            "exit": EXIT,
        },
    ),
    "info": _document(
        "info",
        {
            **_TRACE_HEAD,
            "backend": _STR,
            "device": _STR,
            "sm_count": _INT,
            "grid": _DIMS,
            "block": _DIMS,
            "threads": _INT,
            "sms_used": _INT,
            "span": _INT,
            "time_unit": _STR,
            "level": _NULL_STR,
            "accesses": _INT,
            "recorded_blocks": _nullable({"type": "array", "items": _INT}),
            "truncated": _BOOL,
            "arrays": {
                "type": "array",
                "items": _object(
                    {"name": _STR, "space": _STR, "dtype": _STR, "shape": {"type": "array", "items": _INT}}
                ),
            },
            "runs": _NULL_INT,
            "warnings": _LINES,
            "notes": _LINES,
            "errors": _LINES,
            "findings": FINDINGS,
            "exit": EXIT,
        },
    ),
    "demo": _document(
        "demo",
        {
            "entry": _STR,
            "kind": {"enum": ["lesson", "example", "race"]},
            "launches": {"type": "array", "items": LAUNCH},
            "reference": _NULL_STR,
            "races": _LINES,
            "checks": {
                "type": "array",
                "items": _object({"check": _STR, "passed": _BOOL, "observed": {"type": ["number", "null"]}}),
            },
            "passed": _BOOL,
            "exit": EXIT,
        },
    ),
}


def envelope(command: str) -> dict:
    """The keys every --json document starts with: which schema, its version, and the gpuviz that wrote it."""
    return {"schema": f"gpuviz.{command}", "version": VERSION, "gpuviz": __version__}
