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

__all__ = [
    "argsort",
    "backend",
    "searchsorted",
    "sort",
    "sort_",
    "sort_pairs",
    "topk",
    "unique",
    "unique_consecutive",
]


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
    gives the same result. At most 2^32 - 1 elements. Device arrays: the library
    writes the int64 indices straight into the new tensor."""
    del stable  # every result is the stable one
    if _is_device(a):
        n = _device_len(a)
        if n > 2**32 - 1:
            raise ValueError(f"argsort: {n} elements, at most 2^32 - 1 (u32 indices)")
        indices = _device_empty(a, max(n, 0), "int64")
        _gpusort.argsort_device(a, indices, descending, _stream(a))
        return indices
    return _gpusort.argsort_host(_host(a), descending)


def sort_pairs(keys, values, *, descending=False):
    """``(keys, values)`` sorted by key, stably, values moved with their keys: new
    arrays (keys and values of any supported type). Device arrays: copies of both,
    sorted in place as pairs by the library's pair sort."""
    _both_device(keys, values, "sort_pairs")
    if _is_device(keys):
        n, m = _device_len(keys), _device_len(values)
        if n != m:
            raise ValueError(f"sort_pairs: {n} keys but {m} values")
        keys_out = _device_empty(keys, max(n, 0), _device_dtype(keys))
        values_out = _device_empty(values, max(m, 0), _device_dtype(values))
        _gpusort.sort_pairs_device(keys, values, keys_out, values_out, descending, _stream(keys))
        return keys_out, values_out
    return _gpusort.sort_pairs_host(_host(keys), _host(values), descending)


def searchsorted(sorted, queries, *, side="left", queries_sorted=False):
    """For each query, where it falls in the ascending ``sorted`` (int64):
    ``side='left'`` the first index ``i`` with ``sorted[i] >= q``, ``'right'`` the
    first with ``sorted[i] > q`` (numpy.searchsorted, torch.searchsorted). ``sorted``
    and ``queries`` are one-dimensional arrays of the same type, both host or both
    device arrays; ``sorted`` must be ascending in gpusort's order (floats: IEEE 754
    total order, so -0.0 comes before +0.0 and NaNs sit by sign), else the answers are
    unspecified.

    Host arrays: the library checks whether the queries are ascending and takes the
    merge path if so. Device arrays: each query is a binary search, unless
    ``queries_sorted=True`` promises ascending queries (the merge path, which reads
    each key once; queries that are not ascending then get unspecified answers)."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', not {side!r}")
    _both_device(sorted, queries, "searchsorted")
    right = side == "right"
    if _is_device(queries):
        out = _device_empty(queries, max(_device_len(queries), 0), "int64")
        _gpusort.searchsorted_device(sorted, queries, out, right, bool(queries_sorted), _stream(queries))
        return out
    return _gpusort.searchsorted_host(_host(sorted), _host(queries), right)


def _unique(a, consecutive, return_counts):
    if _is_device(a):
        values, counts = _gpusort.unique_device(
            a, lambda n, dtype: _device_empty(a, n, dtype), consecutive, bool(return_counts), _stream(a)
        )
    else:
        values, counts = _gpusort.unique_host(_host(a), consecutive, bool(return_counts))
    return (values, counts) if return_counts else values


def unique(a, *, return_counts=False):
    """The distinct values of ``a``, ascending (numpy.unique), and with
    ``return_counts`` how often each occurs (int64): ``(values, counts)``. Floats as
    numpy compares them: -0.0 and +0.0 are one value (returned as +0.0), all NaNs one
    value (returned last, as the positive quiet NaN). At most 2^32 - 1 elements.
    Device arrays: new arrays of ``a``'s library, exactly as long as the result (its
    length is read back from the device once)."""
    return _unique(a, False, return_counts)


def unique_consecutive(a, *, return_counts=False):
    """The first value of each run of equal adjacent elements of ``a``
    (torch.unique_consecutive), and with ``return_counts`` each run's length (int64):
    ``(values, counts)``. Equality as in ``unique`` (-0.0 equals +0.0, and unlike
    torch every NaN equals every NaN). At most 2^32 - 1 elements. Device arrays: as in
    ``unique``."""
    return _unique(a, True, return_counts)


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
