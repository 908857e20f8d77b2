"""Errors gpuviz reports to people: each one reads as a single line that says what was wrong."""


class GpuvizError(Exception):
    """Base of every error gpuviz explains in one line (the CLI prints it after 'error:')."""


class LaunchError(GpuvizError, ValueError):
    """A grid or block the device cannot run."""


class KernelSourceError(GpuvizError):
    """Kernel code gpuviz cannot run: a syntax error, an undefined name, an unsupported construct."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


class KernelError(GpuvizError):
    """A thread failed while the kernel ran (out-of-bounds index, division by zero, ...)."""

    def __init__(self, message: str, line: int | None = None, gid: int | None = None):
        super().__init__(message)
        self.line = line
        self.gid = gid


class EngineError(GpuvizError):
    """The simulator's vector engine failed where it should not have: a bug in gpuviz, never the kernel's."""


class TraceFormatError(GpuvizError):
    """A file that is not a gpuviz trace, or of a version this gpuviz cannot read."""


class BackendUnavailable(GpuvizError):
    """The chosen backend cannot run on this machine."""


class PartlySavedError(GpuvizError):
    """A trace file was written without the parts that could not be encoded (the message names them);
    the launch's record stays in memory whole."""

    def __init__(self, message: str, path):
        super().__init__(message)
        self.path = path
