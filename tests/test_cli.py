"""`gpuviz run` on every example script, and one-line errors for bad input."""


import numpy as np
import pytest

import gpuviz
from gpuviz.catalog import EXAMPLES as EXAMPLES_DIR
from gpuviz.cli import main

EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))
LAUNCHES = {"two_launches.py": 2}


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_every_example_runs_and_saves_its_traces(script, tmp_path, capsys):
    assert main(["run", str(script), "--backend", "sim", "--out", str(tmp_path)]) == 0
    traces = sorted(tmp_path.glob("*.npz"))
    assert len(traces) == LAUNCHES.get(script.name, 1)
    err = capsys.readouterr().err
    for index, path in enumerate(traces):
        trace = gpuviz.load(path)
        assert path.name == f"{index:03d}-{trace.kernel}.npz"
        assert trace.meta["launch"] == index and trace.meta["backend"] == "sim"
        assert f"{index:03d} {trace.kernel} grid=" in err and "backend=sim" in err


def test_racy_counter_loses_updates_unless_sequential(tmp_path):
    script = EXAMPLES_DIR / "racy_counter.py"
    main(["run", str(script), "--backend", "sim", "--out", str(tmp_path / "gpu")])
    main(["run", str(script), "--backend", "sim", "--out", str(tmp_path / "seq"), "--schedule", "sequential"])
    racy = gpuviz.load(tmp_path / "gpu" / "000-cudakernel0.npz").after("array")
    serial = gpuviz.load(tmp_path / "seq" / "000-cudakernel0.npz").after("array")
    assert np.all(serial == 64 * 256 * 0.5)
    assert np.all(racy < 100)


def write(tmp_path, text, name="s.py"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "script, message",
    [
        (None, "error: no script at"),
        ("folder", "error: "),
        ("x = (\n", "error: s.py line 1: invalid syntax"),
        ("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] = nope\nk[1, 1](None)\n",
         "error: k, line 4: name 'nope' is not defined"),
        ("from numba import cuda\nimport numpy as np\n@cuda.jit\ndef k(a):\n    a[0] = 1\nk[3, 2048](np.zeros(1))\n",
         "error: s.py line 6: block has 2048 threads; at most 1024 threads per block are allowed"),
        ("assert 1 == 2, 'wrong sum'\n", "error: s.py raised AssertionError at line 1: wrong sum"),
    ],
)  # fmt: skip
def test_bad_input_gives_one_error_line_and_nonzero_exit(tmp_path, capsys, script, message):
    path = str(tmp_path / "missing.py") if script is None else str(tmp_path) if script == "folder" else write(
        tmp_path, script)  # fmt: skip
    assert main(["run", path, "--backend", "sim", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(message), err
    if script == "folder":
        assert err[-1] == f"error: {tmp_path} is a folder; give a Python script in it"
    assert not any("Traceback" in line for line in err)


def test_files_of_the_wrong_kind_say_what_they_are(tmp_path, capsys):
    trace = gpuviz.trace("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] = 1\n", backend="sim")[1, 1](
        np.zeros(1)).save(tmp_path / "000-k.npz")  # fmt: skip
    np.savez(tmp_path / "mine.npz", x=np.arange(3))
    cases = [(["run", str(trace)], "000-k.npz is a trace, not a script: read it with `gpuviz info"),
             (["info", str(tmp_path)], f"{tmp_path} is a folder; give a trace file in it"),
             (["info", str(tmp_path / "mine.npz")], "mine.npz: not a gpuviz trace (it has no 'format' entry)")]
    for argv, message in cases:
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


def test_script_can_catch_an_invalid_launch_like_the_tutorial(tmp_path, capsys):
    text = (
        "from numba import cuda\nimport numpy as np\n@cuda.jit\ndef k(a):\n    a[0] = 1\n"
        "try:\n    k[8193, 2048](np.zeros(4))\nexcept Exception as e:\n    print(f'Exception occurred: {e}')\n"
    )
    assert main(["run", write(tmp_path, text), "--backend", "sim", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Exception occurred: block has 2048 threads" in out


def test_gpu_backend_says_why_it_is_unavailable(tmp_path, capsys):
    script = str(EXAMPLES_DIR / "vector_add.py")
    from gpuviz.backends import unavailable_reason

    reason = unavailable_reason("gpu")
    if reason is None:
        pytest.skip("a GPU is usable here")
    assert main(["run", script, "--backend", "gpu", "--out", str(tmp_path)]) == 1
    assert "error: the gpu backend is not available:" in capsys.readouterr().err


def test_script_arguments_and_info(tmp_path, capsys):
    text = "import sys\nprint('args', sys.argv[1:])\n"
    assert main(["run", write(tmp_path, text), "--out", str(tmp_path), "--", "--size", "5"]) == 0
    captured = capsys.readouterr()
    assert "args ['--size', '5']" in captured.out
    assert "launched no kernel" in captured.err
    script = str(EXAMPLES_DIR / "shared_reduction.py")
    main(["run", script, "--backend", "sim", "--out", str(tmp_path)])
    assert main(["info", str(tmp_path / "000-block_sum.npz")]) == 0
    out = capsys.readouterr().out
    assert "array    partial: shared float32(128,)" in out
    assert "tick(s) (the cost model's cycles)" in out  # which clock the span is on: engines differ
    main(["run", script, "--backend", "sim", "--engine", "reference", "--out", str(tmp_path / "ref")])
    assert main(["info", str(tmp_path / "ref" / "000-block_sum.npz")]) == 0
    assert "tick(s) (the reference engine's scheduler steps, not the cost model's cycles)" in capsys.readouterr().out


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"gpuviz {gpuviz.__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "gpuviz run examples/vector_add.py" in capsys.readouterr().out


def test_open_refuses_missing_and_broken_files_before_any_window(tmp_path, capsys):
    assert main(["open", str(tmp_path / "nope.py")]) == 1
    assert "error: no file at" in capsys.readouterr().err
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"junk")
    assert main(["open", str(broken)]) == 1
    assert "error: broken.npz is not a gpuviz trace" in capsys.readouterr().err


def test_the_app_without_a_display_says_so(monkeypatch, capsys):
    monkeypatch.setattr("sys.platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert main([]) == 1
    assert capsys.readouterr().err.startswith("error: no display to open the app on")


def test_device_function_from_another_module_keeps_its_own_globals(tmp_path, capsys):
    (tmp_path / "helpers.py").write_text(
        "from numba import cuda\nSCALE = 10\n@cuda.jit(device=True)\ndef scaled(x):\n    return x * SCALE\n"
    )
    script = write(tmp_path, "import numpy as np\nfrom numba import cuda\nfrom helpers import scaled\nSCALE = 2\n"
                   "@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = scaled(1.0) + SCALE\n"
                   "a = np.zeros(2)\nk[1, 2](a)\nprint('result', a)\n")  # fmt: skip
    assert main(["run", script, "--backend", "sim", "--out", str(tmp_path / "t")]) == 0
    assert "result [12. 12.]" in capsys.readouterr().out
