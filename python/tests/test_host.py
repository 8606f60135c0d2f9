"""gpusort on host arrays, against numpy: every dtype, both orders, stability, the
float order, sizes, out=, and the errors. Runs on the GPU where there is one and on the
CPU fallback otherwise (CI)."""

import array

import numpy as np
import pytest
from conftest import (
    SIZES,
    is_sorting_permutation,
    keys,
    numpy_unique_consecutive,
    same_bits,
    stable_argsort,
    total_order_key,
)

import gpusort


def test_backend_names_gpu_or_cpu():
    assert gpusort.backend().startswith(("GPU (", "CPU ("))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_numpy(dtype, n, descending):
    a = keys(dtype, n, seed=n)
    before = a.copy()
    got = gpusort.sort(a, descending=descending)
    want = np.sort(a)[::-1] if descending else np.sort(a)
    assert same_bits(got, want)
    assert same_bits(a, before)  # the input is left alone


@pytest.mark.parametrize("n", [0, 1, 5, 4097, 65_537])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_is_stable_int64_and_matches_numpy(dtype, n, descending):
    a = keys(dtype, n, seed=n + 1, duplicates=True)
    got = gpusort.argsort(a, descending=descending)
    assert got.dtype == np.int64
    assert np.array_equal(got, stable_argsort(a, descending))
    loose = gpusort.argsort(a, descending=descending, stable=False)
    assert loose.dtype == np.int64 and is_sorting_permutation(a, loose, got)


@pytest.mark.parametrize("values_dtype", [np.uint32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_pairs_is_stable(dtype, values_dtype, descending):
    n = 10_007
    k = keys(dtype, n, seed=3, duplicates=True)
    v = np.arange(n).astype(values_dtype)
    got_k, got_v = gpusort.sort_pairs(k, v, descending=descending)
    perm = stable_argsort(k, descending)
    assert same_bits(got_k, k[perm])
    assert same_bits(got_v, v[perm])


@pytest.mark.parametrize("k", [0, 1, 100, 1000])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_is_argsort_prefix(dtype, k, largest):
    a = keys(dtype, 1000, seed=k, duplicates=k % 2 == 0)
    values, indices = gpusort.topk(a, k, largest=largest)
    perm = stable_argsort(a, descending=largest)[:k]
    assert indices.dtype == np.int64
    assert np.array_equal(indices, perm)  # ties: the lowest index first
    assert same_bits(values, a[perm])
    assert same_bits(gpusort.topk(a, k, largest=largest, sorted=False)[0], values)


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
@pytest.mark.parametrize("descending", [False, True])
def test_total_order_sorts_floats_in_ieee_total_order(ftype, descending):
    nan = np.array(np.nan, ftype)
    neg_nan = -nan
    assert np.signbit(neg_nan)
    special = np.array([np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5, np.finfo(ftype).tiny, -np.finfo(ftype).tiny], ftype)
    a = np.concatenate([special, np.repeat(nan, 3), np.repeat(neg_nan, 2), special, keys(ftype, 500, seed=9)])
    np.random.default_rng(4).shuffle(a)
    got = gpusort.sort(a, descending=descending, total_order=True)
    want = a[stable_argsort(total_order_key(a), descending)]
    assert same_bits(got, want)
    # The documented order: -nan < -inf < ... < -0.0 < +0.0 < ... < +inf < +nan.
    up = got[::-1] if descending else got
    assert np.isnan(up[:2]).all() and np.signbit(up[:2]).all()
    assert np.isnan(up[-3:]).all() and not np.signbit(up[-3:]).any()
    assert up[2] == -np.inf and up[-4] == np.inf
    zeros = np.flatnonzero(up == 0)
    assert np.signbit(up[zeros[:2]]).all() and not np.signbit(up[zeros[2:]]).any()
    # argsort follows the same order, stably.
    got = gpusort.argsort(a, descending=descending, total_order=True)
    assert np.array_equal(got, stable_argsort(total_order_key(a), descending))


def test_positive_nans_go_last_as_in_numpy():
    a = np.array([2.0, np.nan, -1.0, np.nan, 0.5], np.float32)
    assert same_bits(gpusort.sort(a), np.sort(a))
    assert same_bits(gpusort.sort(a, total_order=True), np.sort(a))


def test_out_receives_the_result_and_is_returned(dtype):
    a = keys(dtype, 1001, seed=5)
    out = np.empty_like(a)
    assert gpusort.sort(a, out=out) is out
    assert same_bits(out, np.sort(a))
    assert gpusort.sort(a, out=a, descending=True) is a
    assert same_bits(a, np.sort(out)[::-1])
    b = keys(dtype, 999, seed=6)
    assert gpusort.sort_(b) is b
    assert same_bits(b, np.sort(keys(dtype, 999, seed=6)))


def test_buffers_and_lists_are_accepted():
    assert gpusort.sort([3, 1, 2]).tolist() == [1, 2, 3]  # int64, as numpy reads it
    buf = array.array("i", [5, -1, 3])
    gpusort.sort_(buf)
    assert buf.tolist() == [-1, 3, 5]
    raw = bytearray(np.array([9.0, 1.0, 4.0], np.float64).tobytes())
    gpusort.sort(np.frombuffer(raw, np.float64), out=memoryview(raw).cast("d"))
    assert np.frombuffer(raw, np.float64).tolist() == [1.0, 4.0, 9.0]


@pytest.mark.parametrize("bad", [np.bool_, np.complex64, np.dtype(">i4"), np.dtype(">f8"), np.dtype(">i2")])
def test_wrong_dtype_is_a_type_error(bad):
    a = np.zeros(8, bad)
    for call in (gpusort.sort, gpusort.argsort, lambda x: gpusort.topk(x, 1), lambda x: gpusort.sort_pairs(x, x)):
        with pytest.raises(TypeError, match="gpusort sorts uint8, int8, uint16, int16, float16, bfloat16, uint32"):
            call(a)


def test_non_contiguous_input_is_a_value_error():
    a = np.arange(20, dtype=np.int32)
    for view in (a[::2], a[::-1]):
        with pytest.raises(ValueError, match="make it contiguous"):
            gpusort.sort(view)
        with pytest.raises(ValueError, match="make it contiguous"):
            gpusort.argsort(view)
    with pytest.raises(ValueError, match="C-contiguous"):
        gpusort.sort(a.reshape(4, 5).T)
    with pytest.raises(ValueError, match="one-dimensional"):
        gpusort.sort_pairs(a.reshape(4, 5), a.reshape(4, 5))
    assert gpusort.sort(np.ascontiguousarray(a[::-1])).tolist() == list(range(20))


def test_bad_out_is_refused():
    a = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="out"):
        gpusort.sort(a, out=np.empty(10, np.float64))
    with pytest.raises(ValueError, match="out"):
        gpusort.sort(a, out=np.empty(9, np.float32))
    ro = np.empty(10, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        gpusort.sort(a, out=ro)
    big = np.arange(12, dtype=np.float32)
    with pytest.raises(ValueError, match="shares part"):
        gpusort.sort(big[:10], out=big[2:])
    with pytest.raises(TypeError, match="in place"):
        gpusort.sort_([3, 2, 1])


def test_mismatched_lengths_and_k_out_of_range_are_value_errors():
    with pytest.raises(ValueError, match="length|keys"):
        gpusort.sort_pairs(np.zeros(4, np.uint32), np.zeros(5, np.uint32))
    a = np.arange(10, dtype=np.int64)
    for k in (-1, 11):
        with pytest.raises(ValueError, match="out of range"):
            gpusort.topk(a, k)


class _HostClaims:
    """An object whose array interface claims what the test says (e.g. more than its
    memory holds: the length must be refused before anything is read or allocated)."""

    def __init__(self, iface, backing):
        self._backing = backing
        self.__array_interface__ = iface


class _DeviceClaims:
    """The same through ``__cuda_array_interface__``."""

    def __init__(self, iface, backing):
        self._backing = backing
        self.__cuda_array_interface__ = iface


def test_row_operations_refuse_more_than_u32_indices():
    # Claims 2^32 elements over 4: the row operations must refuse before reading any
    # (one-dimensional argsort and topk take that many, with int64 indices).
    backing = np.zeros(4, np.uint32)
    huge = _HostClaims(
        {"shape": (2, 2**31), "typestr": "<u4", "data": (backing.ctypes.data, True), "strides": None, "version": 3},
        backing,
    )
    with pytest.raises(ValueError, match="u32 indices"):
        gpusort.argsort(huge)
    with pytest.raises(ValueError, match="u32 indices"):
        gpusort.topk(huge, 1)


def test_device_array_without_a_gpu_is_a_runtime_error():
    if gpusort.backend().startswith("GPU"):
        pytest.skip("a GPU is present")
    backing = np.zeros(4, np.float32)
    fake = _DeviceClaims({"shape": (4,), "typestr": "<f4", "data": (backing.ctypes.data, False), "version": 3}, backing)
    with pytest.raises(RuntimeError, match="CUDA"):
        gpusort.sort_(fake)


def test_threads_sort_concurrently():
    from concurrent.futures import ThreadPoolExecutor

    arrays = [keys(np.float32, 200_003, seed=s) for s in range(4)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(gpusort.sort, arrays))
    for a, got in zip(arrays, results):
        assert same_bits(got, np.sort(a))


@pytest.mark.parametrize("n", [0, 1, 17, 4097, 65_537])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(dtype, n, side):
    a = np.sort(keys(dtype, n, seed=n, duplicates=True))
    queries = keys(dtype, 3001, seed=n + 1, duplicates=True)
    for q in (queries, np.sort(queries)):  # unsorted: binary search; sorted: merge path
        got = gpusort.searchsorted(a, q, side=side)
        assert got.dtype == np.int64
        assert np.array_equal(got, np.searchsorted(a, q, side=side))
    wide = np.sort(keys(dtype, n, seed=n + 2))
    q = keys(dtype, 1000, seed=n + 3)
    assert np.array_equal(gpusort.searchsorted(wide, q, side=side), np.searchsorted(wide, q, side=side))


def test_searchsorted_floats_in_total_order():
    # total_order=True: -0.0 before +0.0 and NaNs by sign, as sort(total_order=True)
    # leaves them.
    a = np.array([-np.nan, -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan], np.float64)
    q = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0], np.float64)
    assert np.array_equal(gpusort.searchsorted(a, q, total_order=True), [3, 4, 7, 0, 5])
    assert np.array_equal(gpusort.searchsorted(a, q, side="right", total_order=True), [4, 5, 8, 1, 6])


def test_searchsorted_errors():
    with pytest.raises(ValueError, match="side"):
        gpusort.searchsorted(np.arange(3), np.arange(3), side="middle")
    with pytest.raises(TypeError, match="queries are"):
        gpusort.searchsorted(np.arange(3, dtype=np.int64), np.arange(3, dtype=np.int32))


@pytest.mark.parametrize("n", [0, 1, 17, 4097, 65_537])
def test_unique_matches_numpy(dtype, n):
    a = keys(dtype, n, seed=n, duplicates=True)
    values, counts = gpusort.unique(a, return_counts=True)
    want, want_counts = np.unique(a, return_counts=True)
    assert same_bits(values, want) and counts.dtype == np.int64 and np.array_equal(counts, want_counts)
    assert same_bits(gpusort.unique(a), want)
    wide = keys(dtype, n, seed=n + 1)
    assert same_bits(gpusort.unique(wide), np.unique(wide))


@pytest.mark.parametrize("n", [0, 1, 17, 4097, 65_537])
def test_unique_consecutive_matches_runs(dtype, n):
    a = np.sort(keys(dtype, n, seed=n, duplicates=True))
    a[: n // 3] = keys(dtype, n // 3, seed=n + 1, duplicates=True)  # runs of 1 too
    values, counts = gpusort.unique_consecutive(a, return_counts=True)
    want, want_counts = numpy_unique_consecutive(a)
    assert same_bits(values, want) and counts.dtype == np.int64 and np.array_equal(counts, want_counts)
    assert same_bits(gpusort.unique_consecutive(a), want)


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
def test_unique_float_equality_is_numpys(ftype):
    a = np.array([np.nan, 1.0, -np.nan, -0.0, 0.0, 1.0, np.inf, -0.0], ftype)
    values, counts = gpusort.unique(a, return_counts=True)
    # One zero (returned as +0.0), one NaN (last, the positive quiet NaN).
    assert same_bits(values[:3], np.array([0.0, 1.0, np.inf], ftype)) and np.isnan(values[3])
    assert not np.signbit(values[3]) and np.array_equal(counts, [3, 2, 1, 2])
    want, want_counts = np.unique(a, return_counts=True)
    assert np.array_equal(values, want, equal_nan=True) and np.array_equal(counts, want_counts)
    runs = np.array([-0.0, 0.0, np.nan, -np.nan, np.nan, 2.0, 2.0], ftype)
    values, counts = gpusort.unique_consecutive(runs, return_counts=True)
    # The first key of each run, bit for bit.
    assert same_bits(values[:1], runs[:1]) and np.isnan(values[1]) and values[2] == 2.0
    assert np.array_equal(counts, [2, 3, 2])
