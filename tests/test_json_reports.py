"""Every reporting command's --json against its versioned schema (core/json_schema.py), and docs/json.md
against the schemas: each field a schema names is explained there."""

import json
import re
from pathlib import Path

import pytest

from gpuviz.cli import main
from gpuviz.core.json_schema import COMMANDS, SCHEMAS, VERSION
from tests.finding_scripts import SCRIPTS

jsonschema = pytest.importorskip("jsonschema", reason="the test extra's jsonschema is not installed")
DOCS = Path(__file__).parent.parent / "docs" / "json.md"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{script name: (the run's JSON document, its trace file)} for the racy and the faulty script."""
    folder, found = tmp_path_factory.mktemp("json"), {}
    for name in ("races", "memory"):
        script = folder / f"{name}.py"
        script.write_text(SCRIPTS[name] + "print('the script says this')\n")
        document = _json(["run", str(script), "--backend", "sim", "--out", str(folder / name), "--json"])
        found[name] = (document, document["launches"][0]["trace"])
    return found


def _json(argv: list[str]) -> dict:
    """The command's stdout, which must be one JSON document and nothing else."""
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        main(argv)
    return json.loads(out.getvalue())


def _valid(command: str, document: dict) -> dict:
    jsonschema.validate(document, SCHEMAS[command])
    assert document["schema"] == f"gpuviz.{command}" and document["version"] == VERSION
    return document


def test_run_json_is_alone_on_stdout_with_each_launch(runs):
    document, _ = runs["memory"]
    _valid("run", document)
    assert document["launches"][0]["findings"]["memory_errors"] == 24
    assert document["exit"] == {"status": 1, "failed_on": ["memory"]}


def test_a_script_that_fails_after_a_launch_still_prints_its_document(tmp_path, capsys):
    script = tmp_path / "fails.py"
    script.write_text(SCRIPTS["memory"] + "x = {}['missing']\n")
    document = _valid("run", _json(["run", str(script), "--backend", "sim", "--out", str(tmp_path / "t"),
                                    "--json", "--allow-errors"]))  # fmt: skip
    assert len(document["launches"]) == 1 and document["launches"][0]["trace"]
    assert document["exit"]["status"] == 1 and "KeyError" in document["exit"]["error"]
    assert "KeyError" in capsys.readouterr().err  # the error line as ever, on stderr


def test_races_json_keeps_its_fields_and_gains_the_envelope(runs, capsys):
    _, trace = runs["races"]
    document = _valid("races", _json(["races", trace, "--json"]))
    assert document["racy"] and document["locations"] == 1 and document["racy_arrays"] == ["total"]
    assert _json(["races", trace, "--format", "json"]) == document


@pytest.mark.parametrize("command", ["memory", "info"])
def test_trace_commands_json(runs, command):
    _, trace = runs["memory"]
    document = _valid(command, _json([command, trace, "--json"]))
    assert document["findings"]["memory_errors"] == 24 and document["kernel"] == "add"


def test_info_json_says_what_the_text_says(runs, capsys):
    _, trace = runs["memory"]
    document = _json(["info", trace, "--json"])
    main(["info", trace])
    text = capsys.readouterr().out
    assert f"threads={document['threads']:,}" in text and document["errors"][0] in text


def test_demo_json(tmp_path):
    document = _valid("demo", _json(["demo", "the-race", "--backend", "sim", "--out", str(tmp_path), "--json"]))
    assert document["kind"] == "lesson" and document["launches"][0]["findings"]["races"] >= 1
    assert document["checks"] and all(check["passed"] for check in document["checks"])


def test_demo_fix_check_json(tmp_path):
    from gpuviz.catalog import find

    unfixed = tmp_path / "missing-syncthreads.py"
    unfixed.write_text(find("missing-syncthreads").path.read_text())
    command = ["demo", "missing-syncthreads", "--check-fix", str(unfixed), "--backend", "sim", "--out", str(tmp_path)]
    document = _valid("demo", _json([*command, "--json"]))
    assert not document["passed"] and document["exit"]["status"] == 1 and document["launches"] == []
    assert document["fix"][0].startswith("fix check: not yet")


def test_json_and_another_format_are_refused(runs, capsys):
    _, trace = runs["races"]
    assert main(["races", trace, "--json", "--format", "sanitizer"]) == 1
    assert capsys.readouterr().err.startswith("error: --json and --format sanitizer ask for two layouts")


def _fields(schema: dict) -> set[str]:
    """Every property name a schema names, nested ones included."""
    names = set()
    if isinstance(schema, dict):
        names |= set(schema.get("properties", {}))
        for value in schema.values():
            names |= _fields(value)
    elif isinstance(schema, list):
        for value in schema:
            names |= _fields(value)
    return names


@pytest.mark.parametrize("command", COMMANDS)
def test_docs_explain_every_field(command):
    text = DOCS.read_text()
    assert f"`gpuviz.{command}`" in text and f"version {VERSION}" in text
    documented = set(re.findall(r"^\| `([a-z_]+)`", text, re.M))
    assert _fields(SCHEMAS[command]) - {"$schema"} <= documented, _fields(SCHEMAS[command]) - documented
