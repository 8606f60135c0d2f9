"""gpusort on host arrays against numpy where the float order matters (NaNs of both
signs and with payloads, both zeros, both infinities: numpy's and torch's order by
default) and along the last dimension of arrays of two or more dimensions. Runs on the
GPU where there is one and on the CPU fallback otherwise (CI)."""

import numpy as np
import pytest
from conftest import keys, same_bits, stable_argsort, total_order_key

import gpusort

FLOATS = [np.float32, np.float64]


def zoo(ftype, n, seed):
    """``n`` floats, shuffled: NaNs of both signs, quiet and signalling, with payloads;
    both zeros; both infinities; the extremes; and ordinary values with repeats."""
    u = np.dtype(f"u{np.dtype(ftype).itemsize}")
    if ftype == np.float32:
        nan_bits = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FC12345]
    else:
        nan_bits = [0x7FF8 << 48, 0xFFF8 << 48, 0x7FF0000000000001, 0xFFF0000000000001, (1 << 63) - 1, (1 << 64) - 1]
    nans = np.array(nan_bits, u).view(ftype)
    fi = np.finfo(ftype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, fi.max, fi.min, fi.tiny, -fi.tiny, 1.0, -1.0], ftype)
    rng = np.random.default_rng(seed)
    a = np.concatenate([np.resize(nans, n // 4), np.resize(special, n // 4), keys(ftype, n - 2 * (n // 4), seed, duplicates=True)])
    rng.shuffle(a)
    return a


def numpy_order_key(a):
    """Integers that order like ``a`` in numpy's order (every NaN last and equal, -0.0
    equal to +0.0), for the descending reference numpy has no sort for."""
    with np.errstate(invalid="ignore"):  # signalling NaNs raise the flag; they are replaced
        c = np.where(np.isnan(a), a.dtype.type(np.nan), a + a.dtype.type(0))  # -0.0 + 0.0 is +0.0
    c = np.where(np.isnan(c), np.abs(c), c)  # one NaN, positive
    return total_order_key(c)


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("n", [16, 1000, 65_537])
def test_sort_and_argsort_match_numpy_bit_for_bit(ftype, n):
    a = zoo(ftype, n, seed=n)
    assert same_bits(gpusort.sort(a), np.sort(a, kind="stable"))
    assert np.array_equal(gpusort.argsort(a), np.argsort(a, kind="stable"))
    b = a.copy()
    gpusort.sort_(b)
    assert same_bits(b, np.sort(a, kind="stable"))


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("n", [16, 65_537])
def test_descending_puts_nans_first_in_input_order(ftype, n):
    a = zoo(ftype, n, seed=n + 1)
    perm = stable_argsort(numpy_order_key(a), descending=True)
    assert np.array_equal(gpusort.argsort(a, descending=True), perm)
    got = gpusort.sort(a, descending=True)
    assert same_bits(got, a[perm])
    nans = np.isnan(a).sum()
    assert np.isnan(got[:nans]).all() and got[nans] == np.inf


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_pairs_follow_numpy_order(ftype, descending):
    a = zoo(ftype, 4097, seed=7)
    v = np.arange(len(a), dtype=np.int64)
    k, vals = gpusort.sort_pairs(a, v, descending=descending)
    perm = stable_argsort(numpy_order_key(a), descending)
    assert same_bits(k, a[perm]) and np.array_equal(vals, perm)
    if not descending:
        assert np.array_equal(vals, np.argsort(a, kind="stable"))


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_treats_nan_as_the_largest(ftype, largest):
    a = zoo(ftype, 1000, seed=11)
    for k in (1, 10, 300, 1000):
        values, indices = gpusort.topk(a, k, largest=largest)
        perm = stable_argsort(numpy_order_key(a), descending=largest)[:k]
        assert np.array_equal(indices, perm) and same_bits(values, a[perm])
    if largest:
        assert np.isnan(gpusort.topk(a, 1)[0][0])


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_compares_as_numpy(ftype, side):
    a = np.sort(zoo(ftype, 1000, seed=13), kind="stable")  # numpy's order: what sort gives
    q = zoo(ftype, 3001, seed=14)
    for qs in (q, np.sort(q)):
        assert np.array_equal(gpusort.searchsorted(a, qs, side=side), np.searchsorted(a, qs, side=side))


def test_signed_zeros_keep_their_input_order():
    a = np.array([0.0, -0.0, 1.0, -0.0, 0.0, -1.0], np.float32)
    assert same_bits(gpusort.sort(a), np.array([-1.0, 0.0, -0.0, -0.0, 0.0, 1.0], np.float32))
    assert same_bits(gpusort.sort(a, descending=True), np.array([1.0, 0.0, -0.0, -0.0, 0.0, -1.0], np.float32))
    assert same_bits(gpusort.sort(a, total_order=True), np.array([-1.0, -0.0, -0.0, 0.0, 0.0, 1.0], np.float32))


def test_integers_ignore_the_float_order():
    a = keys(np.int32, 1000, seed=3, duplicates=True)
    assert same_bits(gpusort.sort(a), gpusort.sort(a, total_order=True))


# Rows: the last dimension of arrays of two or more dimensions.


@pytest.mark.parametrize("shape", [(1, 1), (3, 1), (1, 7), (5, 17), (64, 1000), (3, 4, 33), (0, 5), (4, 0)])
@pytest.mark.parametrize("descending", [False, True])
def test_rows_sort_and_argsort_match_numpy(dtype, shape, descending):
    n = int(np.prod(shape))
    a = keys(dtype, n, seed=n, duplicates=n % 2 == 1).reshape(shape)
    before = a.copy()
    got = gpusort.sort(a, descending=descending)
    idx = gpusort.argsort(a, dim=len(shape) - 1, descending=descending)
    if descending:
        want_idx = np.apply_along_axis(lambda r: stable_argsort(r, True), -1, a) if n else np.zeros(shape, np.int64)
    else:
        want_idx = np.argsort(a, axis=-1, kind="stable")
    assert got.shape == shape and idx.shape == shape and idx.dtype == np.int64
    assert np.array_equal(idx, want_idx)
    assert same_bits(got, np.take_along_axis(a, want_idx, -1))
    assert same_bits(a, before)
    gpusort.sort_(a, descending=descending)
    assert same_bits(a, got)


@pytest.mark.parametrize("ftype", FLOATS)
def test_rows_follow_numpy_order(ftype):
    a = zoo(ftype, 40 * 129, seed=21).reshape(40, 129)
    assert same_bits(gpusort.sort(a), np.sort(a, axis=-1, kind="stable"))
    assert np.array_equal(gpusort.argsort(a), np.argsort(a, axis=-1, kind="stable"))
    for largest in (True, False):
        values, indices = gpusort.topk(a, 9, largest=largest)
        perm = np.stack([stable_argsort(numpy_order_key(r), largest)[:9] for r in a])
        assert np.array_equal(indices, perm) and same_bits(values, np.take_along_axis(a, perm, -1))


@pytest.mark.parametrize("k", [0, 1, 5, 33])
@pytest.mark.parametrize("largest", [True, False])
def test_rows_topk_is_the_sorted_prefix(dtype, k, largest):
    a = keys(dtype, 6 * 33, seed=k, duplicates=True).reshape(2, 3, 33)
    values, indices = gpusort.topk(a, k, largest=largest)
    assert values.shape == (2, 3, k) and indices.shape == (2, 3, k) and indices.dtype == np.int64
    perm = np.stack([stable_argsort(r, largest)[:k] for r in a.reshape(6, 33)]).reshape(2, 3, k)
    assert np.array_equal(indices, perm)  # ties: the lowest column first
    assert same_bits(values, np.take_along_axis(a, perm, -1))


def test_rows_out_and_errors():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::-1].copy()
    out = np.empty_like(a)
    assert gpusort.sort(a, out=out) is out and same_bits(out, np.sort(a, axis=-1))
    for dim in (0, -2):
        with pytest.raises(ValueError, match="last dimension"):
            gpusort.sort(a, dim=dim)
        with pytest.raises(ValueError, match="last dimension"):
            gpusort.argsort(a, dim=dim)
        with pytest.raises(ValueError, match="last dimension"):
            gpusort.topk(a, 1, dim=dim)
    with pytest.raises(ValueError, match="out of range"):
        gpusort.sort(a, dim=2)
    with pytest.raises(ValueError, match="C-contiguous"):
        gpusort.sort(a.T)
    with pytest.raises(ValueError, match="C-contiguous"):
        gpusort.argsort(a[:, ::2])
    with pytest.raises(ValueError, match="out of range"):
        gpusort.topk(a, 7)
    with pytest.raises(ValueError, match="out"):
        gpusort.sort(a, out=np.empty((6, 4), np.float32).T)
    with pytest.raises(ValueError, match="zero-dimensional"):
        gpusort.sort(np.float32(1.0))
