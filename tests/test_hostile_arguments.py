"""Arguments a GPU or gpuviz cannot take are refused in one line wherever they come from: the notebook
magic, --blocks outside the grid, dynamic shared memory over a block's limit, read-only inputs."""

import numpy as np
import pytest

import gpuviz
from gpuviz.cli import main
from gpuviz.core.errors import GpuvizError, LaunchError
from gpuviz.notebook import gpuviz_magic

DOUBLE = """from numba import cuda

@cuda.jit
def double(a, b):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = 2 * a[i]
"""

DYNAMIC = """from numba import cuda, float32

@cuda.jit
def staged(a):
    tile = cuda.shared.array(0, float32)
    i = cuda.threadIdx.x
    tile[i] = a[i]
    cuda.syncthreads()
    a[i] = tile[i] + 1
"""


@pytest.mark.parametrize("line", ["--view 'grid", '--view "grid', "--sms 0", "--backend nowhere"])
def test_the_magic_refuses_a_bad_line_in_one_line(capsys, line):
    namespace: dict = {}
    assert gpuviz_magic(line, "x = 1\n", namespace) is None
    out, err = capsys.readouterr()
    said = (out + err).strip()
    assert "Traceback" not in said and said and "gpuviz_traces" not in namespace


def test_blocks_outside_the_grid_are_refused(tmp_path, capsys):
    script = tmp_path / "one_block.py"
    script.write_text(DOUBLE + "\nimport numpy as np\nb = np.zeros(8)\ndouble[1, 8](np.ones(8), b)\n")
    assert main(["run", str(script), "--backend", "sim", "--blocks", "99999999999", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "--blocks 99999999999" in err and "1 block" in err and "Traceback" not in err
    with pytest.raises(LaunchError, match="--blocks -3"):
        gpuviz.trace(DOUBLE, backend="sim", blocks=(-3,))[2, 8](np.ones(16), np.zeros(16))
    gpuviz.trace(DOUBLE, backend="sim", blocks=(-2, 1))[2, 8](np.ones(16), np.zeros(16))  # both in the grid


def test_dynamic_shared_memory_over_the_limit_is_refused():
    with pytest.raises(LaunchError, match="100,000 bytes of dynamic shared memory.*refuses"):
        gpuviz.trace(DYNAMIC, backend="sim")[1, 32, 0, 100_000](np.zeros(32, np.float32))
    a = np.zeros(32, np.float32)
    gpuviz.trace(DYNAMIC, backend="sim")[1, 32, 0, 128](a)
    assert (a == 1).all()


def test_a_read_only_input_runs_on_a_copy():
    a = np.arange(8.0)
    a.flags.writeable = False
    b = np.zeros(8)
    gpuviz.trace(DOUBLE, backend="sim")[1, 8](a, b)
    assert (b == 2 * a).all()


def test_a_read_only_array_the_kernel_writes_is_one_line():
    b = np.zeros(8)
    b.flags.writeable = False
    with pytest.raises(GpuvizError, match="'b' is a read-only array.*b.copy"):
        gpuviz.trace(DOUBLE, backend="sim")[1, 8](np.ones(8), b)
    assert (b == 0).all()


def test_a_script_asking_for_too_much_dynamic_shared_memory_exits_1(tmp_path, capsys):
    script = tmp_path / "staged.py"
    script.write_text(DYNAMIC + "\nimport numpy as np\nstaged[1, 32, 0, 100_000](np.zeros(32, np.float32))\n")
    assert main(["run", str(script), "--backend", "sim", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "100,000 bytes of dynamic shared memory" in err and "Traceback" not in err
