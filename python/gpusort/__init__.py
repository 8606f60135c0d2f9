"""GPU sorting for numpy arrays and CUDA tensors.

Host arrays (numpy, or any buffer numpy wraps without a copy) are sorted on the GPU
when there is one and on the CPU otherwise (``backend()`` says which); the results are
new numpy arrays. Device arrays (PyTorch CUDA tensors, CuPy arrays: anything with
``__cuda_array_interface__``) are sorted on their device without a copy to the host,
in order with the caller's current stream; new results are allocated through the
caller's library.

Types: ``uint8``, ``int8``, ``uint16``, ``int16``, ``float16``, ``uint32``, ``int32``,
``float32``, ``uint64``, ``int64``, ``float64``, and ``bfloat16`` for PyTorch tensors on
the device (numpy has no bfloat16; ``bfloat16`` host arrays are refused).

Order: floats as numpy and torch order them: every NaN, whatever its sign bit and
payload, after ``+inf`` ascending (first descending; the largest value for ``topk``), all
NaNs equal, and ``-0.0`` equal to ``+0.0``. Sorts keep equal keys (so NaNs among
themselves, and both zeros) in their input order, in both directions, so results match
``numpy.sort(kind='stable')`` bit for bit (and ``torch.sort(stable=True)``, except that
torch's CUDA sort puts negative NaNs first and orders NaNs by payload). Every function
that orders floats takes ``total_order=True`` for IEEE 754 total order instead, ``-nan <
-inf < ... < -0.0 < +0.0 < ... < +inf < +nan`` (NaNs by sign and payload): one order for
every bit pattern, and on the GPU never slower (numpy's order checks the keys for NaN and
-0.0 while the sort's first pass runs, and sorts keys holding either as pairs of a
canonical copy and their bits; a one-dimensional device argsort costs the same in both).

``sort``, ``sort_``, ``argsort`` and ``topk`` work along the last dimension of arrays of
any number of dimensions (``dim=-1``, each row on its own, as torch does), which must be
C-contiguous; another ``dim`` is refused (move it last and make the array contiguous).
"""

import math as _math

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
    # PyTorch tensors by their device (the interface property of a CPU tensor raises
    # AttributeError, and some versions raise TypeError for bfloat16).
    if _library(x) == "torch":
        return x.is_cuda
    return hasattr(x, "__cuda_array_interface__")


def _library(x):
    return type(x).__module__.split(".")[0]


def _is_bf16(x):
    """Whether ``x`` is a PyTorch bfloat16 tensor."""
    if _library(x) != "torch":
        return False
    import torch

    return x.dtype == torch.bfloat16


class _Bf16View:
    """A PyTorch bfloat16 device tensor as the native side reads it: torch's
    ``__cuda_array_interface__`` names bfloat16 ``'<f2'``, as float16 (or has no entry
    for it), so this view hands over the interface of the tensor's int16 view with the
    type string ``'bfloat16'``, which only this class writes."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    @property
    def __cuda_array_interface__(self):
        import torch

        iface = dict(self.tensor.view(torch.int16).__cuda_array_interface__)
        iface["typestr"] = "bfloat16"
        return iface


def _dev(x):
    """A device array as the native side reads it (bfloat16 tensors through
    ``_Bf16View``)."""
    return _Bf16View(x) if _is_bf16(x) else x


def _host(x):
    """A host array for reading: numpy arrays as they are, anything else through
    numpy.asarray (no copy for buffers and CPU tensors)."""
    _refuse_host_bf16(x)
    return x if hasattr(x, "__array_interface__") else _np.asarray(x)


def _refuse_host_bf16(x):
    """bfloat16 host arrays (CPU tensors, ml_dtypes arrays) are refused by name: numpy
    has no bfloat16, so results could not be numpy arrays of it."""
    dtype = getattr(x, "dtype", None)
    if _is_bf16(x) or getattr(dtype, "name", None) == "bfloat16":
        raise TypeError(
            "gpusort sorts bfloat16 on the device only (PyTorch CUDA tensors): numpy has no bfloat16; "
            "move the tensor to the GPU (t.cuda()) or convert it (t.float())"
        )


def _host_target(x, what):
    """A host array for writing: memory the caller holds, never a copy of it."""
    _refuse_host_bf16(x)
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

        # The raw handle, without building a Stream object: the public call took
        # 22 us on the H200 machine's host (2026-11-29), a seventh of an argsort
        # call's time there.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw(x.get_device())
        return torch.cuda.current_stream(x.device).cuda_stream
    return None


def _device_empty(like, shape, dtype):
    """A new device array of ``shape`` (an int: one dimension) of ``dtype`` (a numpy
    dtype name) on ``like``'s device, through ``like``'s library."""
    lib = _library(like)
    if lib == "torch":
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)
    if lib == "cupy":
        import cupy

        with like.device:
            return cupy.empty(shape, dtype=dtype)
    raise TypeError(
        f"gpusort allocates device results through PyTorch or CuPy, not for a {type(like).__name__}: "
        "pass out= or sort in place with sort_()"
    )


def _device_len(x):
    shape = _dev(x).__cuda_array_interface__["shape"]
    return int(_np.prod(shape)) if len(shape) == 1 else -1  # -1: refused by the native side


def _device_dtype(x):
    if _is_bf16(x):
        return "bfloat16"
    if _library(x) == "torch":
        return str(x.dtype).rpartition(".")[2]  # torch.float32 -> float32, without the interface
    return _np.dtype(x.__cuda_array_interface__["typestr"]).name


def _nan_last(a, total_order):
    """Whether the library must sort ``a`` in numpy's order by its canonical copy:
    not for ``total_order``, integers, or float device arrays with neither NaN nor
    -0.0, whose total order is numpy's order bit for bit. The check is the library's
    own pass over ``a`` and one wait for its answer (``has_nan_or_negative_zero_device``;
    0.13 against torch's elementwise check's 0.27 ms for 2^26 float32 on an H200),
    against the canonical copy, pair sort and gather of the NaN-order path (0.56
    against 1.26 ms for 2^24 float32 on an H100). Host arrays are not scanned: their
    transfers dominate."""
    if total_order:
        return False
    if not _is_device(a):
        return True
    if not _device_dtype(a).startswith(("float", "bfloat")):
        return False  # integers: no NaN, one zero
    shape = _dev(a).__cuda_array_interface__["shape"]
    flat = a if len(shape) == 1 else getattr(a, "reshape", None)
    # The check reads one contiguous run of keys: arrays of two or more dimensions
    # through a flat view; strided arrays (which the sort refuses with its own
    # message) and arrays without a view are sorted in numpy's order unchecked.
    if _dev(a).__cuda_array_interface__.get("strides") is not None or flat is None or not shape:
        return True
    if flat is not a:
        flat = flat(-1)
    return bool(_gpusort.has_nan_or_negative_zero_device(_dev(flat), _stream(a)))


# Device sorts and row operations ask for numpy's order without a check here: the
# library's one-dimensional NaN-last sort queues the check before a total-order sort
# and reads its answer while that sort's first pass runs (no separate call and wait);
# the row operations rank by the canonical bits in the one-launch row sort (rows of 513
# to 7,680 4-byte keys) and top-k of rows (k up to 2,048) and check only where numpy's
# order would sort a canonical copy (``rows_nan_last`` in the extension). Other device operations check with _nan_last.


def _shape(x):
    """The shape of a host or device array, as a tuple."""
    if _library(x) == "torch":
        return tuple(x.shape)  # the interface property is slow to build (tens of us)
    if _is_device(x):
        return tuple(_dev(x).__cuda_array_interface__["shape"])
    return tuple(x.__array_interface__["shape"])


def _by_rows(shape, dim, what):
    """Whether an array of ``shape`` goes to the row-wise functions (two or more
    dimensions) or the one-dimensional ones; refuses a ``dim`` other than the last."""
    nd = len(shape)
    if nd == 0:
        raise ValueError(f"{what}: a zero-dimensional array has nothing to sort")
    if not isinstance(dim, int) or not -nd <= dim < nd:
        raise ValueError(f"{what}: dim={dim!r} is out of range for {nd} dimensions")
    if dim % nd != nd - 1:
        raise ValueError(
            f"{what}: gpusort works along the last dimension (dim=-1), not dim={dim}: move that dimension last and "
            "make the array contiguous first (numpy.ascontiguousarray(a.swapaxes(dim, -1)), "
            "t.transpose(dim, -1).contiguous())"
        )
    return nd >= 2


def sort(a, *, dim=-1, descending=False, out=None, total_order=False):
    """``a`` sorted along its last dimension (ascending unless ``descending``),
    stably: ``numpy.sort(a, kind='stable')``, ``torch.sort(a, stable=True).values``.

    Host arrays: a new numpy array, or the result written into ``out`` (which may be
    ``a``) and ``out`` returned. Device arrays: a new array of ``a``'s library, or
    ``out`` (a device array; ``a`` itself sorts in place, as ``sort_(a)``). Arrays of
    two or more dimensions sort each row (the last dimension) on its own: on the GPU
    rows up to 7,680 4-byte keys are sorted one block per row.
    """
    if out is not None:
        _both_device(a, out, "sort")
    if _is_device(a):
        rows = _by_rows(_shape(a), dim, "sort")
        nan_last = not total_order
        if out is None:
            out = _device_empty(a, _shape(a), _device_dtype(a))
        fn = _gpusort.sort_rows_device if rows else _gpusort.sort_device
        fn(_dev(a), _dev(out), descending, nan_last, _stream(a))
        return out
    nan_last = _nan_last(a, total_order)
    a = _host(a)
    rows = _by_rows(_shape(a), dim, "sort")
    fn = _gpusort.sort_rows_host if rows else _gpusort.sort_host
    if out is None:
        return fn(a, None, descending, nan_last)
    fn(a, _host_target(out, "out"), descending, nan_last)
    return out


def sort_(a, *, dim=-1, descending=False, total_order=False):
    """Sorts ``a`` in place along its last dimension (a numpy array, writable buffer
    or device array) and returns it."""
    if _is_device(a):
        rows = _by_rows(_shape(a), dim, "sort_")
        nan_last = not total_order
        fn = _gpusort.sort_rows_device if rows else _gpusort.sort_device
        fn(_dev(a), _dev(a), descending, nan_last, _stream(a))
        return a
    nan_last = _nan_last(a, total_order)
    target = _host_target(a, "a")
    rows = _by_rows(_shape(target), dim, "sort_")
    (_gpusort.sort_rows_host if rows else _gpusort.sort_host)(target, target, descending, nan_last)
    return a


def argsort(a, *, dim=-1, descending=False, stable=True, total_order=False):
    """The indices (int64) that sort ``a`` along its last dimension:
    ``numpy.argsort(a, kind='stable')``, ``torch.argsort(a, stable=True)``: equal keys
    keep their input order, in both directions. ``stable=False``
    (``torch.argsort``'s default) lets equal keys come out in any order: one-dimensional
    arrays of 4-byte keys on the GPU then take a faster first pass; everything else
    gives the stable result, which is one of the allowed ones. One dimension: any number
    of elements (past 2^32 the GPU needs about 24 bytes a 32-bit key besides the keys
    and the indices); along the last of two or more dimensions: at most 2^32 - 1
    elements in all. Device arrays: the library writes the int64 indices straight into
    the new tensor."""
    stable = bool(stable)
    if _is_device(a):
        shape = _shape(a)
        rows = _by_rows(shape, dim, "argsort")
        # One dimension: the library's argsort sorts the canonical bits of float keys
        # as it reads them (32-bit keys) or in the copy it sorts anyway (other widths),
        # so numpy's order costs what total order costs and needs no check; rows are
        # checked in the extension where it pays (see the note before _shape).
        nan_last = not total_order
        n = _math.prod(shape)
        if rows and n > 2**32 - 1:
            raise ValueError(f"argsort along the last dimension: {n} elements, at most 2^32 - 1 (u32 indices)")
        indices = _device_empty(a, shape, "int64")
        if rows:
            _gpusort.argsort_rows_device(_dev(a), indices, descending, nan_last, _stream(a))
        else:
            _gpusort.argsort_device(_dev(a), indices, descending, nan_last, _stream(a), stable=stable)
        return indices
    nan_last = _nan_last(a, total_order)
    a = _host(a)
    if _by_rows(_shape(a), dim, "argsort"):
        return _gpusort.argsort_rows_host(a, descending, nan_last)
    return _gpusort.argsort_host(a, descending, nan_last, stable=stable)


def sort_pairs(keys, values, *, descending=False, total_order=False):
    """``(keys, values)`` sorted by key, stably, values moved with their keys: new
    one-dimensional arrays (keys and values of any supported type). Device arrays:
    copies of both, sorted in place as pairs by the library's pair sort."""
    nan_last = _nan_last(keys, total_order)
    _both_device(keys, values, "sort_pairs")
    if _is_device(keys):
        n, m = _device_len(keys), _device_len(values)
        if n != m:
            raise ValueError(f"sort_pairs: {n} keys but {m} values")
        keys_out = _device_empty(keys, max(n, 0), _device_dtype(keys))
        values_out = _device_empty(values, max(m, 0), _device_dtype(values))
        _gpusort.sort_pairs_device(
            _dev(keys), _dev(values), _dev(keys_out), _dev(values_out), descending, nan_last, _stream(keys)
        )
        return keys_out, values_out
    return _gpusort.sort_pairs_host(_host(keys), _host(values), descending, nan_last)


def searchsorted(sorted, queries, *, side="left", queries_sorted=False, total_order=False):
    """For each query, where it falls in the ascending ``sorted`` (int64):
    ``side='left'`` the first index ``i`` with ``sorted[i] >= q``, ``'right'`` the
    first with ``sorted[i] > q`` (numpy.searchsorted, torch.searchsorted). ``sorted``
    and ``queries`` are one-dimensional arrays of the same type, both host or both
    device arrays; ``sorted`` must be ascending in the order ``sort`` gives (else the
    answers are unspecified). Floats compare as numpy compares them: every NaN above
    ``+inf`` and equal to every other NaN, ``-0.0 == +0.0``, so a NaN query goes to
    the first NaN (left) or the end (right), as in ``numpy.searchsorted``
    (``torch.searchsorted`` answers ``len(sorted)`` for NaN queries on either side).
    Float searches run on canonical copies of both arrays (one more pass over each);
    ``total_order=True`` compares the bits in IEEE 754 total order instead, for
    ``sorted`` from ``sort(..., total_order=True)``, with no copy.

    Host arrays: the library checks whether the queries are ascending and takes the
    merge path if so. Device arrays: each query is a binary search, unless
    ``queries_sorted=True`` promises ascending queries (the merge path, which reads
    each key once; queries that are not ascending then get unspecified answers)."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', not {side!r}")
    _both_device(sorted, queries, "searchsorted")
    right = side == "right"
    nan_last = not total_order
    if _is_device(queries):
        out = _device_empty(queries, max(_device_len(queries), 0), "int64")
        _gpusort.searchsorted_device(
            _dev(sorted), _dev(queries), out, right, bool(queries_sorted), nan_last, _stream(queries)
        )
        return out
    return _gpusort.searchsorted_host(_host(sorted), _host(queries), right, nan_last)


def _unique(a, consecutive, return_counts):
    if _is_device(a):
        values, counts = _gpusort.unique_device(
            _dev(a), lambda n, dtype: _dev(_device_empty(a, n, dtype)), consecutive, bool(return_counts), _stream(a)
        )
        values = values.tensor if isinstance(values, _Bf16View) else values
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


def topk(a, k, *, dim=-1, largest=True, sorted=True, total_order=False):
    """``(values, indices)`` of the ``k`` largest (``largest``) or smallest elements of
    ``a`` along its last dimension (each row on its own for two or more dimensions),
    in sorted order, ties to the lowest index; indices are int64. NaN is the largest
    value, as in ``torch.topk``. ``0 <= k <=`` the last dimension. The values always
    come sorted, so ``sorted=False`` gives the same result. Equal values come lowest
    index first; ``torch.topk`` does not specify the order of ties, so its indices
    may differ where values repeat (the values agree). One dimension: any number of
    elements; along the last of two or more: at most 2^32 - 1 elements in all."""
    del sorted  # the result is always sorted
    if _is_device(a):
        shape = _shape(a)
        rows = _by_rows(shape, dim, "topk")
        # Rows: checked in the extension where it pays (see the note before _shape).
        nan_last = not total_order if rows else _nan_last(a, total_order)
        cols = shape[-1]
        if not 0 <= k <= cols:
            raise ValueError(f"k = {k} is out of range for {cols} elements (0 <= k <= {cols})")
        out_shape = shape[:-1] + (k,)
        values = _device_empty(a, out_shape, _device_dtype(a))
        indices = _device_empty(a, out_shape, "int64")
        fn = _gpusort.topk_rows_device if rows else _gpusort.topk_device
        fn(_dev(a), k, _dev(values), indices, largest, nan_last, _stream(a))
        return values, indices
    nan_last = _nan_last(a, total_order)
    a = _host(a)
    rows = _by_rows(_shape(a), dim, "topk")
    return (_gpusort.topk_rows_host if rows else _gpusort.topk_host)(a, k, largest, nan_last)
