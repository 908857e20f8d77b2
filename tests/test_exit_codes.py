"""The exit status of `gpuviz run` and of the commands that read a trace: today's memory-error exit,
`--allow-errors`, and `--error-exitcode N` with `--error-on` (the table in docs/json.md)."""

import pytest

from gpuviz.cli import main
from tests.finding_scripts import SCRIPTS

ALL = ("clean", "races", "memory", "barrier", "warp-sync")

# flags -> the exit status for each script of ALL, in order
MATRIX = {
    (): (0, 0, 1, 1, 1),
    ("--allow-errors",): (0, 0, 0, 0, 0),
    ("--error-exitcode", "7"): (0, 7, 7, 7, 7),
    ("--error-exitcode", "7", "--error-on", "races"): (0, 7, 0, 0, 0),
    ("--error-exitcode", "7", "--error-on", "memory"): (0, 0, 7, 0, 0),
    ("--error-exitcode", "7", "--error-on", "barrier"): (0, 0, 0, 7, 0),
    ("--error-exitcode", "7", "--error-on", "warp-sync"): (0, 0, 0, 0, 7),
    ("--error-exitcode", "3", "--error-on", "races,memory"): (0, 3, 3, 0, 0),
}


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scripts")
    for name, text in SCRIPTS.items():
        (folder / f"{name}.py").write_text(text)
    return folder


@pytest.fixture(scope="module")
def traces(scripts):
    """Each script's trace, recorded once (main() with --allow-errors always exits 0)."""
    for name in ALL:
        assert main(["run", str(scripts / f"{name}.py"), "--backend", "sim", "--out", str(scripts / name),
                     "--allow-errors"]) == 0  # fmt: skip
    return {name: next((scripts / name).glob("*.npz")) for name in ALL}


@pytest.mark.parametrize("flags", list(MATRIX), ids=lambda f: " ".join(f) or "no flags")
def test_run_exit_status_follows_the_table(scripts, flags, capsys):
    got = tuple(main(["run", str(scripts / f"{name}.py"), "--backend", "sim", "--out", str(scripts / "out"), *flags])
                for name in ALL)  # fmt: skip
    assert got == MATRIX[flags]
    err = capsys.readouterr().err
    if 7 in got:
        assert "(exit status 7, from --error-exitcode)" in err


@pytest.mark.parametrize("command", ["races", "info", "memory"])
def test_trace_commands_exit_0_unless_asked(traces, command, capsys):
    for name in ALL:
        assert main([command, str(traces[name])]) == 0
        expected = 0 if name == "clean" else 5
        assert main([command, str(traces[name]), "--error-exitcode", "5"]) == expected, name
    assert main([command, str(traces["memory"]), "--error-exitcode", "5", "--error-on", "races"]) == 0
    capsys.readouterr()


def test_demo_fails_with_the_code_on_its_race(tmp_path, capsys):
    assert main(["demo", "the-race", "--backend", "sim", "--out", str(tmp_path), "--error-exitcode", "9",
                 "--error-on", "races"]) == 9  # fmt: skip
    assert main(["demo", "the-race", "--backend", "sim", "--out", str(tmp_path), "--error-exitcode", "9",
                 "--error-on", "memory"]) == 0  # fmt: skip
    capsys.readouterr()


def test_races_not_looked_for_are_said(scripts, capsys):
    out = scripts / "threads"
    assert main(["run", str(scripts / "races.py"), "--backend", "sim", "--out", str(out), "--level", "threads",
                 "--error-exitcode", "4", "--error-on", "races"]) == 0  # fmt: skip
    assert "its races were not looked for" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--error-exitcode", "0"], "--error-exitcode 0: give an exit status from 1 to 255"),
        (["--error-exitcode", "256"], "--error-exitcode 256: give an exit status from 1 to 255"),
        (["--error-on", "races"], "--error-on chooses what --error-exitcode N fails on: give --error-exitcode too"),
        (["--error-exitcode", "3", "--error-on", "race"], "--error-on 'race': give one or more of races, memory"),
        (["--error-exitcode", "3", "--error-on", ","], "--error-on ',': give one or more of"),
        (["--error-exitcode", "3", "--allow-errors"], "--allow-errors and --error-exitcode contradict each other"),
    ],
)  # fmt: skip
def test_bad_exit_options_are_one_line(scripts, flags, message, capsys):
    assert main(["run", str(scripts / "clean.py"), "--backend", "sim", "--out", str(scripts / "o"), *flags]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {message}"), err


@pytest.mark.parametrize(("ending", "status", "error"), [("sys.exit(3)", 3, None), ("sys.exit(0)", 0, None),
                                                        ("sys.exit('no data')", 1, "exited at line")])  # fmt: skip
def test_a_script_that_calls_sys_exit_exits_with_its_status(tmp_path, capsys, ending, status, error):
    """A grading script reports through its exit status: gpuviz run passes it on, with no error line."""
    script = tmp_path / "graded.py"
    script.write_text(f"import sys\n{SCRIPTS['clean']}\n{ending}\n")
    assert main(["run", str(script), "--backend", "sim", "--out", str(tmp_path / "t")]) == status
    err = capsys.readouterr().err
    assert ("error:" in err) == (error is not None) and (error or "") in err
    assert "000-" in err  # the launch before it was traced as ever
