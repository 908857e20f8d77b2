"""A worker process dies with the app that started it, however the app ends (SIGKILL included).

Two ways, both on: on Linux the kernel sends the worker SIGKILL when its parent dies
(PR_SET_PDEATHSIG); everywhere, a thread watches the pipe multiprocessing keeps to the parent and
ends the process when it closes.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
EXIT_ORPHANED = 3
USE_PDEATHSIG = True  # tests turn it off to check the pipe alone


def die_with_parent() -> None:
    """Call first thing in a worker started by multiprocessing."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return  # not a multiprocessing child: nothing to watch
    if USE_PDEATHSIG and sys.platform.startswith("linux"):
        _ask_kernel_for_sigkill()
    if os.getppid() != parent.pid:  # the parent died before the request took hold
        os._exit(EXIT_ORPHANED)
    threading.Thread(target=_watch, args=(parent.sentinel,), name="gpuviz-lifeline", daemon=True).start()


def _ask_kernel_for_sigkill() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no prctl here: the pipe alone does it


def _watch(sentinel) -> None:
    multiprocessing.connection.wait([sentinel])  # ready when the parent's end of the pipe closes
    os._exit(EXIT_ORPHANED)
