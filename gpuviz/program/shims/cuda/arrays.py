"""Device arrays on the simulator: host arrays that play numba's device arrays (to_device, device_array,
pinned and mapped arrays); numba.cuda's stand-in and its random module both hand them out. Every copy
between host and device goes on the session's model clock (backends/sim/stream_clock.py)."""

from __future__ import annotations

import numpy as np

from gpuviz.core.dtypes import to_dtype
from gpuviz.core.streams import COPY_IN, COPY_OUT


def clock():
    """The session's timeline of copies, launches and events (a StreamClock on the simulator)."""
    from gpuviz.program.launcher import current

    return current().timeline


def stream_number(stream) -> int:
    """A stream argument as numba takes it (0, None, a stream) as the timeline's number."""
    return int(getattr(stream, "_gpuviz_stream", 0) or 0)


class DeviceArray(np.ndarray):
    """A host array that plays the part of a numba device array (kernels see it live, never frozen)."""

    _gpuviz_device_array = True

    def copy_to_host(self, ary=None, stream=0):
        target = np.empty(self.shape, self.dtype) if ary is None else ary
        clock().copy(COPY_OUT, _placed(target, self), stream_number(stream), "copy_to_host")
        target[...] = self
        return target

    def copy_to_device(self, ary, stream=0) -> None:
        clock().copy(COPY_IN, ary, stream_number(stream), "copy_to_device")
        self[...] = ary

    def is_c_contiguous(self) -> bool:
        return self.flags.c_contiguous


class PinnedArray(np.ndarray):
    """A page-locked host array (`cuda.pinned_array`): its copies are faster and may run beside kernels."""

    _gpuviz_pinned = True


class MappedArray(DeviceArray):
    """Page-locked host memory the device reads directly (`cuda.mapped_array`): no copies at all."""

    _gpuviz_pinned = True


def _placed(target, source) -> np.ndarray:
    """What a copy into `target` moves: the source's bytes, pinned when the target is."""
    if getattr(target, "_gpuviz_pinned", False) or clock().is_pinned(target):
        return np.asarray(source).view(PinnedArray)
    return np.asarray(source)


def to_device(obj, stream=0, copy=True, to=None) -> DeviceArray:
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    clock().copy(COPY_IN, obj, stream_number(stream), "to_device")
    return np.array(obj).view(DeviceArray)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0) -> DeviceArray:
    return np.zeros(shape, to_dtype(dtype), order=order).view(DeviceArray)


def device_array_like(ary, stream=0) -> DeviceArray:
    return np.zeros_like(np.asarray(ary)).view(DeviceArray)


def pinned_array(shape, dtype=np.float64, strides=None, order="C") -> np.ndarray:
    return np.zeros(shape, to_dtype(dtype), order=order).view(PinnedArray)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False) -> DeviceArray:  # fmt: skip
    """Host memory the device reads directly: numba passes it as a device array, with no copy."""
    return np.zeros(shape, to_dtype(dtype), order=order).view(MappedArray)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True) -> DeviceArray:
    """Unified memory: one array both sides see; the model moves no pages."""
    return np.zeros(shape, to_dtype(dtype), order=order).view(DeviceArray)


def pinned_array_like(ary) -> np.ndarray:
    return np.zeros_like(np.asarray(ary)).view(PinnedArray)


def mapped_array_like(ary, stream=0, portable=False, wc=False) -> DeviceArray:
    return np.zeros_like(np.asarray(ary)).view(MappedArray)


def as_cuda_array(obj, sync=True) -> DeviceArray:
    return np.asarray(obj).view(DeviceArray)


def is_cuda_array(obj) -> bool:
    return isinstance(obj, np.ndarray)
