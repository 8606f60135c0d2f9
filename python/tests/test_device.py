"""gpusort on CUDA arrays (PyTorch tensors; CuPy arrays where CuPy is installed),
against numpy: sorted on the device in place or into new tensors, in order with the
caller's stream, and the errors. Skipped without CUDA; GPUSORT_REQUIRE_GPU=1 turns the
skip into a failure, so a GPU run proves they ran."""

import os

import numpy as np
import pytest
from conftest import (
    is_sorting_permutation,
    keys,
    numpy_unique_consecutive,
    same_bits,
    stable_argsort,
    total_order_key,
)

import gpusort

REQUIRE_GPU = os.environ.get("GPUSORT_REQUIRE_GPU") == "1"


def _skip_or_fail(why):
    if REQUIRE_GPU:
        pytest.fail(f"GPUSORT_REQUIRE_GPU=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def torch():
    try:
        import torch
    except ImportError:
        _skip_or_fail("PyTorch is not installed")
    if not torch.cuda.is_available():
        _skip_or_fail("no CUDA device")
    if not gpusort.backend().startswith("GPU"):
        _skip_or_fail(f"gpusort runs on the {gpusort.backend()}")
    return torch


def on_device(torch, a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def to_host(t):
    return t.cpu().numpy()


@pytest.mark.parametrize("n", [1, 1000, 4097, (1 << 20) + 3])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_in_place_matches_numpy(torch, dtype, n, descending):
    a = keys(dtype, n, seed=n)
    t = on_device(torch, a)
    ptr = t.data_ptr()
    assert gpusort.sort_(t, descending=descending) is t
    assert t.data_ptr() == ptr
    want = np.sort(a)[::-1] if descending else np.sort(a)
    assert same_bits(to_host(t), want)


def test_sort_into_new_and_given_tensors(torch, dtype):
    a = keys(dtype, 300_007, seed=1)
    t = on_device(torch, a)
    got = gpusort.sort(t)
    assert isinstance(got, torch.Tensor) and got.device == t.device and got.dtype == t.dtype
    assert same_bits(to_host(got), np.sort(a))
    assert same_bits(to_host(t), a)  # the input is left alone
    out = torch.empty_like(t)
    assert gpusort.sort(t, out=out, descending=True) is out
    assert same_bits(to_host(out), np.sort(a)[::-1])
    assert gpusort.sort(t, out=t) is t
    assert same_bits(to_host(t), np.sort(a))


@pytest.mark.parametrize("descending", [False, True])
def test_argsort_sort_pairs_and_topk_on_the_device(torch, dtype, descending):
    n = 200_003
    a = keys(dtype, n, seed=2, duplicates=True)
    t = on_device(torch, a)
    perm = gpusort.argsort(t, descending=descending)
    assert perm.dtype == torch.int64 and perm.device == t.device
    want = stable_argsort(a, descending)
    assert np.array_equal(to_host(perm), want)
    for vtype in (np.int64, np.uint32, np.float32):
        values = on_device(torch, np.arange(n).astype(vtype))
        k, v = gpusort.sort_pairs(t, values, descending=descending)
        assert same_bits(to_host(k), a[want]) and same_bits(to_host(v), np.arange(n).astype(vtype)[want])
    top, at = gpusort.topk(t, 100, largest=descending)
    assert np.array_equal(to_host(at), want[:100])
    assert same_bits(to_host(top), a[want[:100]])


@pytest.mark.parametrize("n", [1, 4097, 300_007, (1 << 20) + 3])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_stable_false_puts_ties_in_any_order(torch, dtype, n, descending):
    """``stable=False`` (torch.argsort's default): a sorting permutation, ties in any
    order (4-byte keys take the argsort whose first pass ranks ties in any order)."""
    a = keys(dtype, n, seed=n + 7, duplicates=True)
    t = on_device(torch, a)
    perm = gpusort.argsort(t, descending=descending, stable=False)
    assert perm.dtype == torch.int64 and perm.device == t.device
    assert is_sorting_permutation(a, to_host(perm), stable_argsort(a, descending))
    spread = keys(dtype, n, seed=n + 8)
    perm = gpusort.argsort(on_device(torch, spread), descending=descending, stable=False)
    assert is_sorting_permutation(spread, to_host(perm), stable_argsort(spread, descending))


@pytest.mark.parametrize("n", [1, 4097, (1 << 20) + 3])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_writes_int64_and_sort_pairs_every_value_type(torch, dtype, n, descending):
    a = keys(dtype, n, seed=n, duplicates=n > 5000)
    t = on_device(torch, a)
    want = stable_argsort(a, descending)
    perm = gpusort.argsort(t, descending=descending)
    assert perm.dtype == torch.int64 and np.array_equal(to_host(perm), want)
    assert same_bits(to_host(t), a)  # the keys are left alone
    for vtype in (np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64):
        vals = keys(vtype, n, seed=n + 1)
        v = on_device(torch, vals)
        k_out, v_out = gpusort.sort_pairs(t, v, descending=descending)
        assert k_out.dtype == t.dtype and v_out.dtype == v.dtype
        assert same_bits(to_host(k_out), a[want]) and same_bits(to_host(v_out), vals[want])
        assert same_bits(to_host(t), a) and same_bits(to_host(v), vals)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_on_the_device_matches_numpy(torch, dtype, side):
    for n, m in ((0, 5), (1, 1000), (100_003, 300_007)):
        a = np.sort(keys(dtype, n, seed=n, duplicates=True))
        q = keys(dtype, m, seed=m, duplicates=True)
        st, qt = on_device(torch, a), on_device(torch, q)
        got = gpusort.searchsorted(st, qt, side=side)
        assert got.dtype == torch.int64 and got.device == qt.device
        assert np.array_equal(to_host(got), np.searchsorted(a, q, side=side))
        qs = np.sort(q)
        got = gpusort.searchsorted(st, on_device(torch, qs), side=side, queries_sorted=True)
        assert np.array_equal(to_host(got), np.searchsorted(a, qs, side=side))
        wide = np.sort(keys(dtype, n, seed=n + 1))
        got = gpusort.searchsorted(on_device(torch, wide), qt, side=side)
        assert np.array_equal(to_host(got), np.searchsorted(wide, q, side=side))


@pytest.mark.parametrize("n", [0, 1, 4097, (1 << 20) + 3])
def test_unique_and_unique_consecutive_on_the_device(torch, dtype, n):
    a = keys(dtype, n, seed=n, duplicates=True)
    t = on_device(torch, a)
    values, counts = gpusort.unique(t, return_counts=True)
    want, want_counts = np.unique(a, return_counts=True)
    assert isinstance(values, torch.Tensor) and values.device == t.device and counts.dtype == torch.int64
    assert same_bits(to_host(values), want) and np.array_equal(to_host(counts), want_counts)
    assert same_bits(to_host(gpusort.unique(t)), want)
    assert same_bits(to_host(t), a)
    runs = np.sort(a)
    runs[: n // 3] = a[: n // 3]
    r = on_device(torch, runs)
    values, counts = gpusort.unique_consecutive(r, return_counts=True)
    want, want_counts = numpy_unique_consecutive(runs)
    assert same_bits(to_host(values), want) and np.array_equal(to_host(counts), want_counts)
    assert same_bits(to_host(gpusort.unique_consecutive(r)), want)


def test_unique_float_equality_on_the_device(torch):
    a = np.array([np.nan, 1.0, -np.nan, -0.0, 0.0, 1.0, np.inf, -0.0], np.float32)
    values, counts = gpusort.unique(on_device(torch, a), return_counts=True)
    values, counts = to_host(values), to_host(counts)
    assert same_bits(values[:3], np.array([0.0, 1.0, np.inf], np.float32)) and np.isnan(values[3])
    assert not np.signbit(values[3]) and np.array_equal(counts, [3, 2, 1, 2])
    runs = np.array([-0.0, 0.0, np.nan, -np.nan, np.nan, 2.0], np.float64)
    values, counts = gpusort.unique_consecutive(on_device(torch, runs), return_counts=True)
    assert same_bits(to_host(values)[:1], runs[:1]) and np.array_equal(to_host(counts), [2, 3, 1])


def test_new_operations_are_ordered_with_the_callers_stream(torch):
    side = torch.cuda.Stream()
    n = 1 << 22
    with torch.cuda.stream(side):
        t = torch.randint(0, 1000, (n,), device="cuda", dtype=torch.int64)
        t.add_(5)  # queued just before each call
        perm = gpusort.argsort(t)
        k, v = gpusort.sort_pairs(t, torch.arange(n, device="cuda"))
        want = torch.sort(t, stable=True)
        assert torch.equal(k, want.values) and torch.equal(v, want.indices) and torch.equal(perm, want.indices)
        values, counts = gpusort.unique(t, return_counts=True)
        tv, tc = torch.unique(t, return_counts=True)
        assert torch.equal(values, tv) and torch.equal(counts, tc)
        q = torch.randint(0, 1010, (n,), device="cuda", dtype=torch.int64)
        assert torch.equal(gpusort.searchsorted(k, q, side="right"), torch.searchsorted(k, q, right=True))


def test_float_total_order_on_the_device(torch):
    a = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0], np.float32)
    t = on_device(torch, a)
    gpusort.sort_(t, total_order=True)
    got = to_host(t)
    assert np.isnan(got[0]) and np.signbit(got[0]) and np.isnan(got[-1]) and not np.signbit(got[-1])
    assert same_bits(got[1:7], np.array([-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf], np.float32))


def test_work_is_ordered_with_the_callers_stream(torch):
    # Produced, sorted and read back on a side stream, with no synchronisation in
    # between: the sort must wait for the producer and the reader for the sort.
    side = torch.cuda.Stream()
    n = 1 << 24
    with torch.cuda.stream(side):
        t = torch.randn(n, device="cuda")
        t.mul_(3.0).add_(1.0)  # more queued work before the sort
        gpusort.sort_(t)
        sorted_ok = bool((t[1:] >= t[:-1]).all())
        ref = torch.sort(t.clone()).values
        assert sorted_ok and torch.equal(t, ref)
    # On the default stream, a tensor written just before the call.
    u = torch.randn(n, device="cuda")
    want = torch.sort(u).values
    u.neg_()
    gpusort.sort_(u, descending=True)
    assert torch.equal(u, -want)


def test_device_errors(torch):
    t = on_device(torch, np.arange(100, dtype=np.float32))
    with pytest.raises(ValueError, match="make it contiguous"):
        gpusort.sort_(t[::2])
    with pytest.raises(ValueError, match="C-contiguous"):
        gpusort.sort_(t.reshape(10, 10).T)
    with pytest.raises(ValueError, match="last dimension"):
        gpusort.sort(t.reshape(10, 10), dim=0)
    with pytest.raises(ValueError, match="one-dimensional"):
        gpusort.sort_pairs(t.reshape(10, 10), t.reshape(10, 10))
    with pytest.raises(TypeError, match="gpusort sorts"):
        gpusort.sort_(t.to(torch.complex64))
    with pytest.raises(TypeError, match="same side"):
        gpusort.sort(t, out=np.empty(100, np.float32))
    with pytest.raises(ValueError, match="out of range"):
        gpusort.topk(t, 101)
    with pytest.raises(ValueError, match="out"):
        gpusort.sort(t, out=torch.empty(99, device="cuda"))
    # Host memory presented as device memory is refused by the driver's pointer check.
    host = np.zeros(16, np.float32)

    class Fake:
        __cuda_array_interface__ = {"shape": (16,), "typestr": "<f4", "data": (host.ctypes.data, False), "version": 2}

    with pytest.raises(ValueError, match="not (CUDA )?device memory"):
        gpusort.sort_(Fake())
    with pytest.raises(TypeError, match="same side"):
        gpusort.searchsorted(t, np.arange(3, dtype=np.float32))
    with pytest.raises(TypeError, match="queries are"):
        gpusort.searchsorted(t, t.double())
    with pytest.raises(ValueError, match="keys but"):
        gpusort.sort_pairs(t, t[:99])


def test_cupy_arrays_when_installed(torch):
    cupy = pytest.importorskip("cupy")
    a = keys(np.float64, 100_003, seed=8)
    c = cupy.asarray(a)
    gpusort.sort_(c, descending=True)
    assert same_bits(cupy.asnumpy(c), np.sort(a)[::-1])
    got = gpusort.sort(cupy.asarray(a))
    assert isinstance(got, cupy.ndarray) and same_bits(cupy.asnumpy(got), np.sort(a))
    perm = gpusort.argsort(cupy.asarray(a))
    assert np.array_equal(cupy.asnumpy(perm), np.argsort(a, kind="stable"))
    values, counts = gpusort.unique(cupy.asarray(a[:1000].round()), return_counts=True)
    want, want_counts = np.unique(a[:1000].round(), return_counts=True)
    assert same_bits(cupy.asnumpy(values), want) and np.array_equal(cupy.asnumpy(counts), want_counts)


# numpy's and torch's float order (the default) and rows, against torch itself.

from test_numpy_order import numpy_order_key, zoo  # noqa: E402


def torch_comparable(a):
    """``a`` with every NaN the default NaN: torch's CUDA sort orders NaNs by their bits
    (negative NaNs first, then by payload, as CUB's radix sort), numpy's order does not;
    with one NaN bit pattern both orders agree, so torch can be the reference."""
    return np.where(np.isnan(a), a.dtype.type(np.nan), a)


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [16, 4097, (1 << 20) + 3])
@pytest.mark.parametrize("descending", [False, True])
def test_nan_order_matches_numpy_and_torch_bit_for_bit(torch, ftype, n, descending):
    a = zoo(ftype, n, seed=n)
    t = on_device(torch, a)
    perm = stable_argsort(numpy_order_key(a), descending)
    got = gpusort.sort(t, descending=descending)
    assert same_bits(to_host(got), a[perm])
    assert np.array_equal(to_host(gpusort.argsort(t, descending=descending)), perm)
    if not descending:
        assert same_bits(to_host(got), np.sort(a, kind="stable"))
    k, v = gpusort.sort_pairs(t, torch.arange(n, device="cuda"), descending=descending)
    assert same_bits(to_host(k), a[perm]) and np.array_equal(to_host(v), perm)
    u = t.clone()
    gpusort.sort_(u, descending=descending)
    assert same_bits(to_host(u), a[perm])
    # torch.sort(stable=True) itself, where its NaN order is numpy's (one NaN pattern).
    b = on_device(torch, torch_comparable(a))
    want_v, want_i = torch.sort(b, descending=descending, stable=True)
    assert same_bits(to_host(gpusort.sort(b, descending=descending)), to_host(want_v))
    assert torch.equal(gpusort.argsort(b, descending=descending), want_i)


@pytest.mark.parametrize("ftype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [7681, 300_007])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_in_numpy_order_needs_no_check(torch, ftype, n, descending):
    """The device argsort in numpy's order (no check first: the library sorts the
    keys' canonical bits as it reads them) against numpy, NaNs of both signs and
    payloads and both zeros included, and in total order against the bit order."""
    if ftype == np.float16:
        rng = np.random.default_rng(n)
        a = rng.standard_normal(n).astype(np.float16)
        bits = a.view(np.uint16)
        bits[::3] = np.resize(np.array([0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x8000, 0x0000, 0x7C00], np.uint16), bits[::3].size)
    else:
        a = zoo(ftype, n, seed=n)
    t = on_device(torch, a)
    assert np.array_equal(to_host(gpusort.argsort(t, descending=descending)), stable_argsort(numpy_order_key(a), descending))
    total = gpusort.argsort(t, descending=descending, total_order=True)
    assert np.array_equal(to_host(total), stable_argsort(total_order_key(a), descending))
    key = numpy_order_key(a)
    loose = to_host(gpusort.argsort(t, descending=descending, stable=False))
    assert is_sorting_permutation(key, loose, stable_argsort(key, descending))


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
def test_signed_zeros_without_nans_keep_their_input_order_on_the_device(torch, ftype):
    # No NaN: the check for NaN and -0.0 must still send -0.0 to numpy's order.
    a = np.array([0.0, -0.0, 1.0, -0.0, 0.0, -1.0] * 1000, ftype)
    t = on_device(torch, a)
    assert same_bits(to_host(gpusort.sort(t)), np.sort(a, kind="stable"))
    assert np.array_equal(to_host(gpusort.argsort(t)), np.argsort(a, kind="stable"))
    assert same_bits(to_host(gpusort.sort(t, total_order=True)), a[stable_argsort(total_order_key(a))])
    plain = keys(ftype, 10_000, seed=2)  # neither NaN nor -0.0: the total-order path
    assert same_bits(to_host(gpusort.sort(on_device(torch, plain))), np.sort(plain, kind="stable"))


@pytest.mark.parametrize("ftype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [7681, 300_007])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_checks_for_one_nan_or_negative_zero_anywhere(torch, ftype, n, descending):
    """The one-dimensional device sort makes its NaN / -0.0 check while the total-order
    sort's first pass runs, and starts over in numpy's order from the untouched keys
    when it finds one: a single NaN or -0.0 first, in the middle or last, sorted into
    a new tensor and in place, equals numpy's stable order bit for bit."""
    plain = keys(ftype, n, seed=n, duplicates=n < 10_000)  # few values: passes skipped
    plain[np.isnan(plain) | (plain == 0)] = 1.5
    cases = [plain]
    for at in (0, n // 2, n - 1):
        for special in (np.nan, -0.0):
            a = plain.copy()
            a[at] = special
            cases.append(a)
    for a in cases:
        perm = stable_argsort(numpy_order_key(a), descending)
        t = on_device(torch, a)
        assert same_bits(to_host(gpusort.sort(t, descending=descending)), a[perm])
        assert same_bits(to_host(t), a)  # the input of a new tensor's sort is left alone
        gpusort.sort_(t, descending=descending)
        assert same_bits(to_host(t), a[perm])


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
def test_nan_check_is_torchs_answer(torch, ftype):
    """The library's check for NaN or -0.0 (which picks numpy's order or the
    total-order path) answers as torch's elementwise tests, wherever the key is."""
    check = gpusort._gpusort.has_nan_or_negative_zero_device
    plain = keys(ftype, 100_003, seed=4)  # neither NaN nor a zero
    assert not check(on_device(torch, plain))
    assert not check(on_device(torch, np.zeros(0, ftype)))
    assert not check(on_device(torch, np.arange(1000, dtype=np.int32)))
    for special in [np.nan, -np.nan, -0.0]:
        for at in [0, 50_000, 100_002]:
            a = plain.copy()
            a[at] = special
            t = on_device(torch, a)
            want = bool(torch.isnan(t).any() | ((t == 0) & torch.signbit(t)).any())
            assert want and check(t)
    assert not check(on_device(torch, np.array([0.0, 1.0], ftype)))


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_nan_is_the_largest_as_in_torch(torch, ftype, largest):
    a = zoo(ftype, 100_003, seed=5)
    t = on_device(torch, a)
    for k in (1, 100, 5000):
        values, indices = gpusort.topk(t, k, largest=largest)
        assert indices.dtype == torch.int64
        perm = stable_argsort(numpy_order_key(a), largest)[:k]
        assert np.array_equal(to_host(indices), perm) and same_bits(to_host(values), a[perm])
        b = on_device(torch, torch_comparable(a))
        tv, _ = torch.topk(b, k, largest=largest)
        # torch.topk's values agree in value (NaNs where torch has NaNs); its tie order
        # is unspecified, so the bits of equal values (zero signs) may differ.
        assert np.array_equal(to_host(gpusort.topk(b, k, largest=largest)[0]), to_host(tv), equal_nan=True)


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_nans_matches_numpy_on_the_device(torch, ftype, side):
    a = np.sort(zoo(ftype, 10_000, seed=3), kind="stable")
    q = zoo(ftype, 30_001, seed=4)
    for qs, promise in ((q, False), (np.sort(q, kind="stable"), True)):
        got = gpusort.searchsorted(on_device(torch, a), on_device(torch, qs), side=side, queries_sorted=promise)
        assert np.array_equal(to_host(got), np.searchsorted(a, qs, side=side))


def _rows_argsort(a, descending):
    """The stable sorting permutation of each row of ``a`` in numpy's order."""
    rows = a.reshape(-1, a.shape[-1]) if a.size else a.reshape(0, a.shape[-1])
    key = numpy_order_key if a.dtype.kind == "f" else (lambda r: r)
    perm = [stable_argsort(key(r), descending) for r in rows]
    return np.array(perm, np.int64).reshape(a.shape)


@pytest.mark.parametrize("shape", [(1, 1), (7, 1), (5, 17), (300, 1000), (2, 3, 4097), (16, 20_000), (0, 3)])
@pytest.mark.parametrize("descending", [False, True])
def test_rows_match_numpy_and_torch(torch, dtype, shape, descending):
    n = int(np.prod(shape))
    kind = np.dtype(dtype).kind
    a = zoo(dtype, n, seed=n).reshape(shape) if kind == "f" and n >= 4 else keys(dtype, n, seed=n, duplicates=True).reshape(shape)
    t = on_device(torch, a)
    want_i = _rows_argsort(a, descending)
    want_v = np.take_along_axis(a, want_i, -1)
    got = gpusort.sort(t, descending=descending)
    assert got.shape == t.shape and same_bits(to_host(got), want_v)
    idx = gpusort.argsort(t, descending=descending)
    assert idx.dtype == torch.int64 and np.array_equal(to_host(idx), want_i)
    u = t.clone()
    assert gpusort.sort_(u, dim=-1, descending=descending) is u and same_bits(to_host(u), to_host(got))
    if kind != "u":  # torch.sort itself, stable, bit for bit (one NaN pattern: see torch_comparable)
        b = on_device(torch, torch_comparable(a) if kind == "f" else a)
        tv, ti = torch.sort(b, dim=-1, descending=descending, stable=True)
        assert same_bits(to_host(gpusort.sort(b, descending=descending)), to_host(tv))
        assert torch.equal(gpusort.argsort(b, descending=descending), ti)
    cols = shape[-1]
    for k in sorted({0, 1, min(50, cols), cols}):
        values, indices = gpusort.topk(t, k, largest=descending)
        assert values.shape == shape[:-1] + (k,) and indices.dtype == torch.int64
        assert np.array_equal(to_host(indices), want_i[..., :k])  # ties: lowest column first
        assert same_bits(to_host(values), want_v[..., :k])
        if n and k and kind != "u":
            b = on_device(torch, torch_comparable(a) if kind == "f" else a)
            tv, _ = torch.topk(b, k, dim=-1, largest=descending)
            ours = gpusort.topk(b, k, largest=descending)[0]
            assert np.array_equal(to_host(ours), to_host(tv), equal_nan=True)
