"""What a library's device function is on the simulator: a call a kernel makes (and links on a GPU)
that gpuviz runs as its model (shims/linked_models.py).

The kernel rewrite recognises a `LinkedCall` by its `_gpuviz_linked_models` (the instrument layer
imports nothing from here) and calls the model that takes as many arguments as the call gives.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuviz.core.errors import GpuvizError
from gpuviz.instrument.refusals import LINKED_MODELS


class LinkedCall:
    """A library device function: `files` is what `@cuda.jit(link=...)` takes (nothing to link here)."""

    files: list[str] = []

    def __init__(self, name: str, label: str, models: dict[int, Callable]):
        self._gpuviz_linked_name = name  # as the script names it, for messages
        self._gpuviz_linked_label = label  # what the model does, in words (the trace keeps it per call)
        self._gpuviz_linked_models = models

    def __call__(self, *args):
        raise GpuvizError(f"{self._gpuviz_linked_name} is a library device function; call it from inside a kernel")

    def __repr__(self) -> str:
        return f"<{self._gpuviz_linked_name}: gpuviz's model>"


class NotModelled(GpuvizError, AttributeError):
    """A library name the simulator has no model of (an AttributeError too, so `hasattr` stays False)."""


def not_modelled(path: str, attribute: bool = True) -> GpuvizError:
    """The one line for a library name the simulator has no model of: an AttributeError too for an
    object's attribute; for a module's name a plain GpuvizError, which `from module import name` lets
    through (it turns an AttributeError into "cannot import name")."""
    kind = NotModelled if attribute else GpuvizError
    return kind(
        f"{path} is not modelled by gpuviz's simulator (it models {LINKED_MODELS}); "
        f"run this script with --backend gpu"
    )
