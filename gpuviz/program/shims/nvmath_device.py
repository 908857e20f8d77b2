"""A stand-in for `nvmath.device` on the simulator: the device matmul (cuBLASDx) as gpuviz's model.

nvmath-python 1.0 spells it `MM = Matmul(size=(m, n, k), precision=..., data_type="real",
arrangement=(...), block_size=..., execution="Block")` and `MM.execute(alpha, a, b, beta, c)` inside a
kernel (it links the library itself); releases before 0.7, as the GTC'25 article uses them, spelled it
`MM = matmul(...)`, `@cuda.jit(link=MM.files)` and `MM(alpha, a, b, beta, c)`. Both run here. Only what
the model covers is accepted (real data, execution "Block"); anything else is refused in one line.
"""

from __future__ import annotations

from collections import namedtuple

from gpuviz.core.errors import GpuvizError
from gpuviz.program.shims.linked import LinkedCall, not_modelled
from gpuviz.program.shims.linked_models import matmul_model

Dim3 = namedtuple("Dim3", "x y z", defaults=(1, 1))
LeadingDimension = namedtuple("LeadingDimension", "a b c")
Arrangement = namedtuple("Arrangement", "a b c")
TransposeMode = namedtuple("TransposeMode", "a b")
ARRANGEMENTS = ("col_major", "row_major")
MAX_SUGGESTED_THREADS = 256


class Matmul:
    """A block-wide matrix multiply C = alpha * A @ B + beta * C of A (m x k) and B (k x n)."""

    def __init__(self, size, precision, data_type, *, sm=None, block_size=None, block_dim=None,
                 leading_dimension=None, transpose_mode=None, arrangement=None, alignment=None,
                 function="MM", static_block_dim=False, execution="Block", with_pipeline=False,
                 enable_input_streaming=False):  # fmt: skip
        self.size = _size(size)
        self.precision, self.data_type, self.sm, self.function = precision, data_type, sm, function
        self.execution, self.alignment, self.static_block_dim = execution, alignment, static_block_dim
        _check_modelled(data_type, execution, function, with_pipeline or enable_input_streaming)
        self.arrangement = _arrangement(arrangement, transpose_mode)
        self.leading_dimension = _leading_dimension(self.size, self.arrangement, leading_dimension)
        self.block_dim = _block_dim(self.size, block_size, block_dim)
        m, n, k = self.size
        self.execute = LinkedCall(f"{function}.execute", self._label(), {5: matmul_model(m, n, k, self._strides())})

    @property
    def block_size(self) -> int:
        return self.block_dim.x * self.block_dim.y * self.block_dim.z

    @property
    def a_dim(self) -> tuple[int, int]:
        return self.size[0], self.size[2]

    @property
    def b_dim(self) -> tuple[int, int]:
        return self.size[2], self.size[1]

    @property
    def c_dim(self) -> tuple[int, int]:
        return self.size[0], self.size[1]

    @property
    def a_size(self) -> int:
        return self.leading_dimension.a * self.a_dim[1 if self.arrangement.a == "col_major" else 0]

    @property
    def b_size(self) -> int:
        return self.leading_dimension.b * self.b_dim[1 if self.arrangement.b == "col_major" else 0]

    @property
    def c_size(self) -> int:
        return self.leading_dimension.c * self.c_dim[1 if self.arrangement.c == "col_major" else 0]

    def _strides(self) -> tuple[tuple[int, int], ...]:
        """(row step, column step) of A, B and C in memory."""
        ld = self.leading_dimension
        return tuple((1, lead) if order == "col_major" else (lead, 1) for order, lead in zip(self.arrangement, ld))

    def _label(self) -> str:
        m, n, k = self.size
        return (f"nvmath-python device matmul (cuBLASDx) {m}x{n}x{k}, {'/'.join(self.arrangement)}: "
                f"C = alpha * A @ B + beta * C")  # fmt: skip

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise not_modelled(f"nvmath.device.Matmul.{name}")


class MatmulFunction(LinkedCall):
    """What `nvmath.device.matmul(...)` gave before nvmath-python 0.7: the call itself, with `files` to
    link and the traits as attributes."""

    def __init__(self, matmul: Matmul):
        super().__init__(matmul.function, matmul._label(), matmul.execute._gpuviz_linked_models)
        self._matmul = matmul

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._matmul, name)


def matmul(*, size, precision, data_type, compiler=None, code_type=None, execute_api=None, **traits) -> MatmulFunction:
    """The article's spelling: `MM = matmul(size=..., ..., compiler="numba")`, `MM(alpha, a, b, beta, c)`."""
    return MatmulFunction(Matmul(size, precision, data_type, **traits))


def _size(size) -> tuple[int, int, int]:
    if not (isinstance(size, (tuple, list)) and len(size) == 3 and all(int(v) == v and v > 0 for v in size)):
        raise GpuvizError(f"Matmul size {size!r}: give (m, n, k), three positive integers")
    return tuple(int(v) for v in size)


def _check_modelled(data_type, execution, function, pipelined) -> None:
    if data_type != "real":
        raise not_modelled(f"nvmath.device.Matmul(data_type={data_type!r})")
    if execution != "Block":
        raise not_modelled(f"nvmath.device.Matmul(execution={execution!r})")
    if function != "MM":
        raise not_modelled(f"nvmath.device.Matmul(function={function!r})")
    if pipelined:
        raise not_modelled("nvmath.device.Matmul with a pipeline")


def _arrangement(arrangement, transpose_mode) -> Arrangement:
    if arrangement is None and transpose_mode is None:
        raise GpuvizError("Matmul needs arrangement=(a, b, c), each 'col_major' or 'row_major' (or transpose_mode)")
    if arrangement is None:  # the deprecated spelling: A and B transposed or not, C column-major
        a, b = (("row_major" if mode == "transposed" else "col_major") for mode in transpose_mode)
        arrangement = (a, b, "col_major")
    if len(arrangement) != 3 or any(order not in ARRANGEMENTS for order in arrangement):
        raise GpuvizError(f"Matmul arrangement {arrangement!r}: give (a, b, c), each 'col_major' or 'row_major'")
    return Arrangement(*arrangement)


def _leading_dimension(size, arrangement: Arrangement, given) -> LeadingDimension:
    """cuBLASDx's default: the length of a column (column-major) or of a row (row-major)."""
    if given is not None:
        return LeadingDimension(*given)
    m, n, k = size
    shapes = ((m, k), (k, n), (m, n))
    return LeadingDimension(*(rows if order == "col_major" else cols
                              for order, (rows, cols) in zip(arrangement, shapes)))  # fmt: skip


def _block_dim(size, block_size, block_dim) -> Dim3:
    """The block the matmul runs on; with neither given, a guess (cuBLASDx suggests its own: ask
    `MM.block_dim` on a GPU): a whole number of warps, one thread per element of C, at most 256."""
    if block_dim is not None:
        return Dim3(*block_dim)
    if block_size is not None:
        return Dim3(int(block_size))
    m, n, _ = size
    return Dim3(min(MAX_SUGGESTED_THREADS, -(-m * n // 32) * 32))


def __getattr__(name: str):
    if name.startswith("_"):
        raise AttributeError(name)
    raise not_modelled(f"nvmath.device.{name}", attribute=False)
