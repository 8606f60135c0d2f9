"""GPU sorting for numpy arrays and CUDA tensors.

Host arrays (numpy, or any buffer numpy wraps without a copy) are sorted on the GPU
when there is one and on the CPU otherwise (``backend()`` says which); the results are
new numpy arrays. Device arrays (PyTorch CUDA tensors, CuPy arrays: anything with
``__cuda_array_interface__``) are sorted on their device without a copy to the host,
in order with the caller's current stream; new results are allocated through the
caller's library.

Order: floats by IEEE 754 total order, ``-nan < -inf < ... < -0.0 < +0.0 < ... < +inf <
+nan`` (numpy puts every NaN last and treats -0.0 and +0.0 as equal). Sorts of keys with
equal values keep their input order (stable), in both directions.
"""

import numpy as _np

from . import _gpusort
from ._gpusort import __version__, backend

__all__ = ["argsort", "backend", "sort", "sort_", "sort_pairs", "topk"]


def _is_device(x):
    # PyTorch raises AttributeError from the property for CPU tensors.
    return hasattr(x, "__cuda_array_interface__")


def _library(x):
    return type(x).__module__.split(".")[0]


def _host(x):
    """A host array for reading: numpy arrays as they are, anything else through
    numpy.asarray (no copy for buffers and CPU tensors)."""
    return x if hasattr(x, "__array_interface__") else _np.asarray(x)


def _host_target(x, what):
    """A host array for writing: memory the caller holds, never a copy of it."""
    if hasattr(x, "__array_interface__"):
        return x
    arr = _np.asarray(x)
    if arr.base is None:  # numpy made new memory (a list, a scalar): writes would be lost
        raise TypeError(f"{what}: a {type(x).__name__} cannot be sorted in place; pass a numpy array or a writable buffer")
    return arr


def _both_device(a, b, what):
    if _is_device(a) != _is_device(b):
        raise TypeError(f"{what}: one argument is a CUDA array and the other a host array; pass both on the same side")


def _stream(x):
    """The caller's CUDA stream for device array ``x``: PyTorch's interface names
    none, so its current stream is passed; other libraries name theirs."""
    if _library(x) == "torch":
        import torch

        return torch.cuda.current_stream(x.device).cuda_stream
    return None


def _device_empty(like, n, dtype):
    """A new 1-D device array of ``n`` elements of ``dtype`` (a numpy dtype name) on
    ``like``'s device, through ``like``'s library."""
    lib = _library(like)
    if lib == "torch":
        import torch

        return torch.empty(n, dtype=getattr(torch, dtype), device=like.device)
    if lib == "cupy":
        import cupy

        with like.device:
            return cupy.empty(n, dtype=dtype)
    raise TypeError(
        f"gpusort allocates device results through PyTorch or CuPy, not for a {type(like).__name__}: "
        "pass out= or sort in place with sort_()"
    )


def _device_len(x):
    shape = x.__cuda_array_interface__["shape"]
    return int(_np.prod(shape)) if len(shape) == 1 else -1  # -1: refused by the native side


def _device_dtype(x):
    return _np.dtype(x.__cuda_array_interface__["typestr"]).name


def _widen(indices, n):
    """The library's u32 indices (in an int32 array) as int64."""
    wide = indices.astype("int64") if _library(indices) == "cupy" else indices.to(dtype=__import__("torch").int64)
    if n > 2**31 - 1:  # indices past 2^31 were read as negative int32
        wide &= 0xFFFFFFFF
    return wide


def _gather(x, perm):
    """``x[perm]`` on the device. PyTorch does not index uint32 and uint64 tensors on
    CUDA, so those are gathered as the signed integers of the same width (the same
    bits)."""
    if _library(x) == "torch":
        import torch

        same_width = {torch.uint32: torch.int32, torch.uint64: torch.int64}.get(x.dtype)
        if same_width is not None:
            return x.view(same_width)[perm].view(x.dtype)
    return x[perm]


def sort(a, *, descending=False, out=None):
    """``a`` sorted (ascending unless ``descending``), stably.

    Host arrays: a new numpy array, or the result written into ``out`` (which may be
    ``a``) and ``out`` returned. Device arrays: a new array of ``a``'s library, or
    ``out`` (a device array; ``a`` itself sorts in place, as ``sort_(a)``).
    """
    if out is not None:
        _both_device(a, out, "sort")
    if _is_device(a):
        if out is None:
            out = _device_empty(a, max(_device_len(a), 0), _device_dtype(a))
        _gpusort.sort_device(a, out, descending, _stream(a))
        return out
    if out is None:
        return _gpusort.sort_host(_host(a), None, descending)
    target = _host_target(out, "out")
    _gpusort.sort_host(_host(a), target, descending)
    return out


def sort_(a, *, descending=False):
    """Sorts ``a`` in place (a numpy array, writable buffer or device array) and
    returns it."""
    if _is_device(a):
        _gpusort.sort_device(a, a, descending, _stream(a))
        return a
    _gpusort.sort_host(_host_target(a, "a"), _host_target(a, "a"), descending)
    return a


def argsort(a, *, descending=False, stable=True):
    """The indices (int64) that sort ``a``: ``a[argsort(a)]`` is sorted. Always
    stable (equal keys keep their input order, in both directions), so ``stable=False``
    gives the same result. At most 2^32 - 1 elements."""
    del stable  # every result is the stable one
    if _is_device(a):
        n = _device_len(a)
        if n > 2**32 - 1:
            raise ValueError(f"argsort: {n} elements, at most 2^32 - 1 (u32 indices)")
        indices = _device_empty(a, max(n, 0), "int32")
        _gpusort.argsort_device(a, indices, descending, _stream(a))
        return _widen(indices, n)
    return _gpusort.argsort_host(_host(a), descending)


def sort_pairs(keys, values, *, descending=False):
    """``(keys, values)`` sorted by key, stably, values moved with their keys: new
    arrays. Device arrays: a gather of both by the device argsort."""
    _both_device(keys, values, "sort_pairs")
    if _is_device(keys):
        if _device_len(keys) != _device_len(values):
            raise ValueError(f"sort_pairs: {_device_len(keys)} keys but {_device_len(values)} values")
        perm = argsort(keys, descending=descending)
        return _gather(keys, perm), _gather(values, perm)
    return _gpusort.sort_pairs_host(_host(keys), _host(values), descending)


def topk(a, k, *, largest=True, sorted=True):
    """``(values, indices)`` of the ``k`` largest (``largest``) or smallest elements of
    ``a``, in sorted order, ties to the lowest index; indices are int64. ``0 <= k <=
    len(a)``. The values always come sorted, so ``sorted=False`` gives the same result."""
    del sorted  # the result is always sorted
    if _is_device(a):
        n = _device_len(a)
        if n >= 0 and not 0 <= k <= n:
            raise ValueError(f"k = {k} is out of range for {n} elements (0 <= k <= {n})")
        values = _device_empty(a, k, _device_dtype(a))
        indices = _device_empty(a, k, "int32")
        _gpusort.topk_device(a, k, values, indices, largest, _stream(a))
        return values, _widen(indices, n)
    return _gpusort.topk_host(_host(a), k, largest)
