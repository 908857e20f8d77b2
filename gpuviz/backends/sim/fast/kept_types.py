"""The NumPy dtypes of the locals a kernel keeps per thread across a barrier (fast/phases.py), learnt from numba's
typing of the translation that makes their arrays lazily, and kept on disk beside it.

The translation cannot know a local's type (numba infers it), so its first form has each kept local's array
made by the first thread that keeps one. Run that way, numba counts the array's references on every thread
of the phase, which tripled a shared-memory reduction's run. So before a kernel's first launch with
arguments of new types, numba types that first form (without running it); the launch then runs a
translation that makes the arrays once, before the blocks run (fast/translate.py: `kept_dtypes`), and
later launches find the dtypes here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

KEEP = "_keep_"  # the translation's name of a kept local's array: _keep_<local>


def arguments_key(host_args: tuple) -> str:
    """The kernel's argument types as numba types them: the kept locals' dtypes follow from them."""
    from numba import typeof

    return ",".join(str(typeof(a)) for a in host_args)


def known(sidecar: Path, key: str) -> dict[str, str] | None:
    """The dtypes learnt before for these argument types (None where none were, or the file is unreadable:
    then they are learnt again)."""
    found = read_table(sidecar).get(key)
    return found if isinstance(found, dict) and all(_plain(d) for d in found.values()) else None


def read_table(sidecar: Path) -> dict:
    """A JSON table kept beside a translation, or {} where it is missing or unreadable."""
    try:
        found = json.loads(sidecar.read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def learn(py_func, signature: tuple) -> dict[str, str] | None:
    """The dtype of every kept local's array, from numba's typing of the lazy translation (`py_func`, its
    Python function) for one signature (None where a kept array is not a plain NumPy array)."""
    from numba import njit

    typed = njit(py_func)  # uncached: only a compile of its own keeps its typing
    typed.compile(signature)
    typemap = typed.overloads[signature].type_annotation.typemap
    found: dict[str, str] = {}
    for variable, kind in typemap.items():
        name = variable.split(".")[0]
        if not name.startswith(KEEP):
            continue
        dtype = getattr(kind, "dtype", None)
        if getattr(kind, "ndim", None) != 1 or not _plain(str(dtype)):
            return None
        found[name[len(KEEP) :]] = _numpy_name(str(dtype))
    return found


def remember(sidecar: Path, key: str, dtypes: dict[str, str]) -> None:
    """Written whole, then renamed: a reader never sees half a file."""
    table = read_table(sidecar) | {key: dtypes}
    tmp = sidecar.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(table, sort_keys=True))
        tmp.replace(sidecar)
    except OSError:  # a read-only cache: the dtypes are learnt again next time
        tmp.unlink(missing_ok=True)


def _numpy_name(dtype: str) -> str:
    name = np.dtype(dtype).name
    return "bool_" if name == "bool" else name  # numba knows np.bool_, not NumPy 2's np.bool


def _plain(dtype: str) -> bool:
    """A dtype the translation can name as `np.<dtype>`: bool, integers, floats, complex."""
    try:
        return np.dtype(dtype).kind in "biufc" and hasattr(np, np.dtype(dtype).name)
    except TypeError:
        return False
