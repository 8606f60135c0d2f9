"""Shared by the tests: key generators and the references they are checked against."""

import numpy as np
import pytest

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]
# Empty, tiny, odd and around the GPU kernels' tile sizes; all sort in well under a
# second on the CPU fallback.
SIZES = [0, 1, 2, 3, 17, 1000, 4097, 65_537]


def keys(dtype, n, seed, *, duplicates=False):
    """``n`` keys of ``dtype`` over the type's whole range (or few distinct values),
    without NaN and -0.0, where numpy's order and the IEEE total order agree."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if duplicates:
        return rng.integers(0, 7, n).astype(dtype) - (3 if dtype.kind != "u" else 0)
    if dtype.kind == "f":
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-5, 6, n)).astype(dtype)
        a[a == 0] = 1  # no -0.0
        return a
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def stable_argsort(a, descending=False):
    """The stable sorting permutation (ties in input order, in both directions)."""
    if not descending:
        return np.argsort(a, kind="stable")
    n = len(a)
    return (n - 1 - np.argsort(a[::-1], kind="stable")[::-1]).astype(np.int64)


def is_sorting_permutation(key, perm, want):
    """Whether ``perm`` sorts keys whose order is ``key``'s (unsigned order bits or the
    keys themselves, no NaN), ties in any order: a permutation of ``0..n`` whose keys
    equal, place by place, those of ``want``, a known sorting permutation."""
    perm, n = np.asarray(perm), len(key)
    return perm.shape == (n,) and np.array_equal(np.sort(perm), np.arange(n)) and np.array_equal(key[perm], key[want])


def total_order_key(a):
    """Unsigned integers that order like ``a`` in IEEE 754 total order (floats) or as
    ``a`` (integers): an independent statement of the documented order."""
    if a.dtype.kind != "f":
        return a
    u = np.dtype(f"u{a.dtype.itemsize}")
    bits = a.view(u)
    sign = u.type(1) << u.type(8 * a.dtype.itemsize - 1)
    return np.where(bits & sign, ~bits, bits | sign)


def same_bits(x, y):
    """Equal element for element, bit for bit (NaNs and signed zeros included)."""
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x.view(f"u{x.dtype.itemsize}"), y.view(f"u{y.dtype.itemsize}"))


def numpy_unique_consecutive(a):
    """Runs of equal adjacent elements by numpy's float equality, NaNs equal."""
    if len(a) == 0:
        return a[:0], np.zeros(0, np.int64)
    same = (a[1:] == a[:-1]) | (np.isnan(a[1:]) & np.isnan(a[:-1]) if a.dtype.kind == "f" else False)
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    return a[starts], np.diff(np.append(starts, len(a))).astype(np.int64)


@pytest.fixture(params=DTYPES, ids=lambda d: np.dtype(d).name)
def dtype(request):
    return request.param
