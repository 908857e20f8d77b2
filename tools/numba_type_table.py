"""Write gpuviz/backends/sim/numba_types.py: the type numba-cuda gives each operator's result, for every pair of
number types, read from numba-cuda's own typing context (no GPU needed). The simulator's engines compute in
these types; tests/test_numba_types.py checks the written table against the installed numba-cuda.

    python tools/numba_type_table.py          # rewrite the table
"""

from __future__ import annotations

import math
import operator
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parent.parent / "gpuviz" / "backends" / "sim" / "numba_types.py"
NAMES_TARGET = Path(__file__).resolve().parent.parent / "gpuviz" / "instrument" / "numba_cuda_names.py"
CODES = ("b", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16")
NAMES = ("boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
         "float32", "float64", "complex64", "complex128")  # fmt: skip
BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
          "mod": operator.mod, "truediv": operator.truediv, "pow": operator.pow, "and": operator.and_,
          "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift,
          "max": max}  # fmt: skip
UNARY = {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "abs": abs}
# math's functions that numba-cuda compiles: one argument, and two (ldexp's second is an integer)
MATH_ONE = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "degrees", "erf", "erfc", "exp",
            "exp2", "expm1", "fabs", "floor", "frexp", "gamma", "isfinite", "isinf", "isnan", "lgamma", "log",
            "log10", "log1p", "log2", "modf", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")  # fmt: skip
MATH_TWO = ("atan2", "copysign", "fmod", "hypot", "ldexp", "nextafter", "pow", "remainder")
# cuda.atomic's operations: the element types each takes (its value is converted to the array's type)
ATOMICS = ("add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "inc", "dec", "exch", "cas",
           "compare_and_swap")  # fmt: skip


def types_module():
    from numba import types

    return types


def typing_context():
    from numba.cuda.descriptor import cuda_target

    context = cuda_target.typing_context
    context.refresh()
    return context


def _code(numba_type) -> str:
    if isinstance(numba_type, types_module().BaseTuple):  # frexp, modf: the first element's type
        numba_type = numba_type.types[0]
    return CODES[NAMES.index(str(numba_type).replace("bool", "boolean"))] if numba_type is not None else "-"


def _signature(context, function, args):
    try:
        return context.resolve_value_type(function).get_call_type(context, args, {})
    except Exception:  # numba's typing raises its own errors for operands it does not type
        return None


def result_code(context, function, *args) -> str:
    signature = _signature(context, function, args)
    return _code(signature.return_type) if signature is not None else "-"


def compared_code(context, a, b) -> str:
    """The type both sides of a comparison are converted to (numba converts, then compares)."""
    signature = _signature(context, operator.lt, (a, b)) or _signature(context, operator.eq, (a, b))
    return _code(signature.args[0]) if signature is not None else "-"


def atomic_code(context, op: str, element) -> str:
    """The array's element type where numba-cuda types cuda.atomic.<op> on a 1-D array of it, else '-'."""
    from numba import cuda, types

    array = types.Array(element, 1, "C")
    operands = {"cas": (array, types.intp, element, element), "compare_and_swap": (array, element, element)}
    try:
        function = context.resolve_getattr(types.Module(cuda.atomic), op)
        signature = function.get_call_type(context, operands.get(op, (array, types.intp, element)), {})
    except Exception:  # numba's typing raises its own errors for operands it does not type
        signature = None
    return _code(signature.return_type) if signature is not None else "-"


def tables() -> dict[str, list[list[str]]]:
    from numba import types

    context = typing_context()
    number = [getattr(types, name) for name in NAMES]
    found = {name: [[result_code(context, f, a, b) for b in number] for a in number] for name, f in BINARY.items()}
    found["compare"] = [[compared_code(context, a, b) for b in number] for a in number]
    found.update({name: [[result_code(context, f, a)] for a in number] for name, f in UNARY.items()})
    for name in MATH_TWO:
        function = getattr(math, name)
        found[f"math.{name}"] = [[result_code(context, function, a, b) for b in number] for a in number]
    for name in MATH_ONE:
        found[f"math.{name}"] = [[result_code(context, getattr(math, name), a)] for a in number]
    for op in ATOMICS:
        found[f"atomic.{op}"] = [[atomic_code(context, op, a)] for a in number]
    return found


def module_text(found: dict[str, list[list[str]]], version: str) -> str:
    """Each distinct table once, under the first name that has it; the names that share it in SAME_AS."""
    distinct: dict[tuple, str] = {}
    same_as: dict[str, str] = {}
    for name, rows in found.items():
        key = tuple(" ".join(row) for row in rows)
        if key in distinct:
            same_as[name] = distinct[key]
        else:
            distinct[key] = name
    lines = [
        f'"""The types numba-cuda {version} gives operators\' results, written by tools/numba_type_table.py from',
        "numba-cuda's typing context (tests/test_numba_types.py checks it against the installed numba-cuda). Rows are",
        "the left operand's type, columns the right's, in the order of CODES; '-' where numba-cuda refuses the pair.",
        "`compare` is the type both sides of a comparison are converted to; the unary tables have one column. A table",
        'is written once, under the first name that has it; SAME_AS names the operators and functions sharing it."""',
        "",
        "CODES = (" + ", ".join(f'"{code}"' for code in CODES) + ")",
        "",
        "_DISTINCT = {",
    ]
    for key, name in distinct.items():
        if len(key[0].split()) == 1:  # one column: one line
            lines.append(f'    "{name}": (' + ", ".join(f'"{code}"' for code in key) + "),")
            continue
        lines.append(f'    "{name}": (')
        lines.extend(f'        "{row}",' for row in key)
        lines.append("    ),")
    lines += ["}", "SAME_AS = {"]
    lines += [f'    "{name}": "{first}",' for name, first in same_as.items()]
    lines += ["}", "TABLES = {**_DISTINCT, **{name: _DISTINCT[first] for name, first in SAME_AS.items()}}"]
    return "\n".join(lines) + "\n"


def cuda_names() -> list[str]:
    """numba.cuda's public names, its submodules included whether imported yet or not (`cuda.random` is an
    attribute only once something imported it): a kernel's `cuda.<name>` outside them does not compile."""
    import pkgutil

    from numba import cuda

    names = set(dir(cuda)) | {module.name for module in pkgutil.iter_modules(cuda.__path__)}
    return sorted(name for name in names if not name.startswith("_"))


def names_text(names: list[str], version: str) -> str:
    lines = [f'"""numba.cuda\'s public names in numba-cuda {version}, written by tools/numba_type_table.py',
             "(a kernel's `cuda.<name>` outside them does not compile; tests/test_numba_types.py checks the list)."
             + '"""', "",
             "NUMBA_CUDA_NAMES = frozenset(", "    {"]  # fmt: skip
    lines += [f'        "{name}",' for name in names]
    lines += ["    }", ")", "# math's functions numba-cuda compiles (a call of another, math.gcd, does not compile)",
              "NUMBA_CUDA_MATH = frozenset(", "    {"]  # fmt: skip
    lines += [f'        "{name}",' for name in sorted(MATH_ONE + MATH_TWO)]
    return "\n".join([*lines, "    }", ")", ""])


def main() -> int:
    from importlib.metadata import version

    TARGET.write_text(module_text(tables(), version("numba-cuda")))
    NAMES_TARGET.write_text(names_text(cuda_names(), version("numba-cuda")))
    print(f"wrote {TARGET} and {NAMES_TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
