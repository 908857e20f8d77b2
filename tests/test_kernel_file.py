"""A fix check takes only the kernels of a student's file (program/kernel_file.py): its kernels, device functions,
the imports and constants they use, at their own lines; host code is left out, and what a kernel may name or
reach is held to what a CUDA kernel can use, with one line saying what was refused and where."""

import pytest

from gpuviz.catalog import find
from gpuviz.program.kernel_file import (
    KernelFileRefused,
    host_with_kernels_of,
    kernel_names,
    load_kernels,
    take_kernels,
)
from gpuviz.program.script import shims_for

HEAD = "import math\nimport os\nimport numpy as np\nfrom numba import cuda, float32\n\nTILE = 4\nPADDED = TILE + 1\n"
KERNEL = """

@cuda.jit(device=True)
def twice(x):
    return 2 * x


@cuda.jit
def kernel(values, out):
    tile = cuda.shared.array(PADDED, float32)
    i = cuda.grid(1)
    if i < values.size:
        tile[i % TILE] = values[i]
        out[i] = twice(math.sqrt(np.float32(values[i]))) + BODY
"""
HOST = """
values = np.ones(8, np.float32)
os._exit(0)
kernel[1, 8](values, np.zeros_like(values))
"""


def student(body: str = "0") -> str:
    return HEAD + KERNEL.replace("BODY", body) + HOST


def test_only_kernels_imports_and_constants_are_taken_at_their_own_lines():
    text = student()
    taken = take_kernels(text, ("kernel",))
    assert taken.kernels == ("kernel",)  # a device function is not a kernel
    kept = taken.text.splitlines()
    assert len(kept) == len(text.splitlines())
    assert kept[5:7] == ["TILE = 4", "PADDED = TILE + 1"] and "import math" in kept
    assert "import os" not in kept  # only imports of numpy, math, cmath and numba are taken...
    assert not any("_exit" in line or "np.ones" in line for line in kept)  # ...and host code never is
    assert [n for n, line in enumerate(text.splitlines()) if "def kernel" in line] == [
        n for n, line in enumerate(kept) if "def kernel" in line]  # fmt: skip


@pytest.mark.parametrize(("body", "words"), [
    ("os.getpid()", ["'os' is not something a kernel in a fix check may use"]),
    ("values.tofile('x')", [".tofile of a value"]),
    ("values.__class__", ["attributes that start with _"]),
    ("__builtins__", ["names that start with _"]),
    ("[1, 2][0]", ["a list is not something"]),
    ("max(v for v in values)", ["a generator"]),
    ("(lambda: 1)()", ["a lambda"]),
    ("kernel[1, 1](values, out)", ["'kernel' is a kernel: kernels are launched by the host"]),
    ("open('x')", ["'open' is not something"]),
    ("0\n        np.testing.assert_array_equal = np.add", ["np.testing.assert_array_equal = ...: a kernel changes"]),
    ("open('x').read()", [".read of a value"]),
])  # fmt: skip
def test_a_kernel_is_held_to_what_a_cuda_kernel_can_use(body, words):
    with pytest.raises(KernelFileRefused) as refused:
        take_kernels(student(body), ("kernel",))
    message = str(refused.value)
    line = next(n for n, text in enumerate(student(body).splitlines(), 1) if body.splitlines()[-1].strip() in text)
    assert message.startswith(f"line {line}: ") and "\n" not in message and all(w in message for w in words), message
    assert refused.value.line == line


def test_a_file_without_the_lessons_kernel_or_that_does_not_parse_is_one_line():
    with pytest.raises(KernelFileRefused, match="has no kernel 'matmul': the lesson's script launches it"):
        take_kernels(student(), ("matmul",), "matmul.py")
    with pytest.raises(KernelFileRefused, match=r"matmul.py line 3: invalid syntax"):
        take_kernels("x = 1\n\ndef (:\n", (), "matmul.py")
    with pytest.raises(KernelFileRefused, match="one statement a line"):
        take_kernels(student().replace("PADDED = TILE + 1", "PADDED = TILE + 1; os.system('x')"), ("kernel",))


@pytest.mark.parametrize(("body", "reached"), [
    ("np.save('trace.npz', values)", "np.save"),
    ("np.lib.format.open_memmap('x')", "np.lib.format"),
    ("cuda.close()", None),  # the simulator's stand-in: allowed, and harmless
    ("math.floor(1.5) + np.pi + float32(1)", None),
])  # fmt: skip
def test_what_the_names_of_imports_reach_is_checked_on_the_objects_before_anything_runs(tmp_path, body, reached):
    path = tmp_path / "kernels.py"
    path.write_text(take_kernels(student(body), ("kernel",)).text)
    with shims_for("sim"):
        if reached is None:
            assert load_kernels(path).kernel.py_func.__name__ == "kernel"
        else:
            with pytest.raises(KernelFileRefused, match=f"{reached}.* is not something a kernel"):
                load_kernels(path)


def test_the_lessons_host_loads_the_students_kernels_and_keeps_its_lines():
    lesson = find("matmul").source
    host = host_with_kernels_of(lesson, "/tmp/yours.py")
    assert len(host.splitlines()) == len(lesson.splitlines()) and "@cuda.jit" not in host
    assert "_gv_load('/tmp/yours.py')" in host and "matmul_tiled = _gv_kernels.matmul_tiled" in host
    assert kernel_names(lesson) == ("matmul", "matmul_tiled")
    assert kernel_names(find("two-level-reduction").source) == ("block_sum",)  # not its device function
