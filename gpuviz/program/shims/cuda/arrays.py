"""Device arrays on the simulator: host arrays that play numba's device arrays (to_device, device_array,
pinned and mapped arrays); numba.cuda's stand-in and its random module both hand them out."""

from __future__ import annotations

import numpy as np

from gpuviz.core.dtypes import to_dtype


class DeviceArray(np.ndarray):
    """A host array that plays the part of a numba device array (kernels see it live, never frozen)."""

    _gpuviz_device_array = True

    def copy_to_host(self, ary=None, stream=0):
        if ary is None:
            return np.array(self)
        ary[...] = self
        return ary

    def copy_to_device(self, ary, stream=0) -> None:
        self[...] = ary

    def is_c_contiguous(self) -> bool:
        return self.flags.c_contiguous


def to_device(obj, stream=0, copy=True, to=None) -> DeviceArray:
    if to is not None:
        to.copy_to_device(obj)
        return to
    return np.array(obj).view(DeviceArray)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0) -> DeviceArray:
    return np.zeros(shape, to_dtype(dtype), order=order).view(DeviceArray)


def device_array_like(ary, stream=0) -> DeviceArray:
    return np.zeros_like(np.asarray(ary)).view(DeviceArray)


def pinned_array(shape, dtype=np.float64, strides=None, order="C") -> np.ndarray:
    return np.zeros(shape, to_dtype(dtype), order=order)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False,
                 attach_global=True) -> DeviceArray:  # fmt: skip
    """Host memory the device reads directly: numba passes it as a device array, with no copy."""
    return pinned_array(shape, dtype, order=order).view(DeviceArray)


managed_array = mapped_array


def pinned_array_like(ary) -> np.ndarray:
    return np.zeros_like(np.asarray(ary))


def mapped_array_like(ary, stream=0, portable=False, wc=False) -> DeviceArray:
    return np.zeros_like(np.asarray(ary)).view(DeviceArray)


def as_cuda_array(obj, sync=True) -> DeviceArray:
    return np.asarray(obj).view(DeviceArray)


def is_cuda_array(obj) -> bool:
    return isinstance(obj, np.ndarray)
