"""gpusort on the 16- and 8-bit dtypes (uint8, int8, uint16, int16, float16; bfloat16
as PyTorch tensors on the device) against numpy and torch: sort, argsort, sort_,
sort_pairs, topk, and the row-wise forms, numpy's float order (NaN last, -0.0 equal
to +0.0, stable) and IEEE total order. Host arrays run where ``backend()`` says (the
CPU in CI); the device tests skip without CUDA (GPUSORT_REQUIRE_GPU=1 fails them)."""

import os

import numpy as np
import pytest
from conftest import same_bits, stable_argsort, total_order_key

import gpusort

NARROW = [np.uint8, np.int8, np.uint16, np.int16, np.float16]
REQUIRE_GPU = os.environ.get("GPUSORT_REQUIRE_GPU") == "1"
# f16 NaNs of both signs, quiet and signalling, with payloads.
F16_NANS = [0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0xFFFF, 0x7E55]
# bf16's, as above.
BF16_NANS = [0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FFF, 0xFFFF, 0x7FD5]


def narrow_keys(dtype, n, seed):
    """``n`` keys of ``dtype``: a third from a few values (ties), the rest over the
    whole range; floats also hold NaNs with payloads, both zeros and both infinities."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    bits = rng.integers(0, 1 << (8 * dtype.itemsize), n, dtype=np.uint64).astype(f"u{dtype.itemsize}")
    few = rng.integers(0, 5, n).astype(f"u{dtype.itemsize}")
    a = np.where(np.arange(n) % 3 == 0, few, bits).view(dtype)
    if dtype.kind == "f":
        special = np.array(F16_NANS + [0x0000, 0x8000, 0x7C00, 0xFC00], np.uint16).view(np.float16)
        mask = rng.integers(0, 5, n) == 0
        a = np.where(mask, np.resize(special, n), a)
    return np.ascontiguousarray(a)


def numpy_order_key(a):
    """Unsigned integers ordering like ``a`` in numpy's order (every NaN last and
    equal, both zeros equal)."""
    if a.dtype.kind != "f":
        return a
    with np.errstate(invalid="ignore"):
        c = np.where(np.isnan(a), a.dtype.type(np.nan), a + a.dtype.type(0))
    return total_order_key(np.where(np.isnan(c), np.abs(c), c))


def reference_perm(a, descending, total_order):
    key = total_order_key(a) if total_order else numpy_order_key(a)
    return stable_argsort(key, descending=descending)


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [0, 1, 2, 17, 1001, 65_537])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("total_order", [False, True])
def test_host_sorts_match_numpy(dtype, n, descending, total_order):
    a = narrow_keys(dtype, n, seed=n)
    perm = reference_perm(a, descending, total_order)
    assert np.array_equal(gpusort.argsort(a, descending=descending, total_order=total_order), perm)
    assert same_bits(gpusort.sort(a, descending=descending, total_order=total_order), a[perm])
    if not descending and not total_order:
        assert same_bits(gpusort.sort(a), np.sort(a, kind="stable"))
    b = a.copy()
    gpusort.sort_(b, descending=descending, total_order=total_order)
    assert same_bits(b, a[perm])
    values = np.arange(n, dtype=np.int64)
    k, v = gpusort.sort_pairs(a, values, descending=descending, total_order=total_order)
    assert same_bits(k, a[perm]) and np.array_equal(v, perm)


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("largest", [True, False])
def test_host_topk_matches_the_stable_sort(dtype, largest):
    a = narrow_keys(dtype, 5003, seed=7)
    perm = reference_perm(a, largest, False)
    for k in [0, 1, 10, 3000, 5003]:
        vals, idx = gpusort.topk(a, k, largest=largest)
        assert np.array_equal(idx, perm[:k]) and same_bits(vals, a[perm[:k]])


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(3, 7), (40, 300), (2, 9000)])
@pytest.mark.parametrize("descending", [False, True])
def test_host_rows_match_numpy(dtype, shape, descending):
    a = narrow_keys(dtype, shape[0] * shape[1], seed=shape[1]).reshape(shape)
    perm = np.stack([reference_perm(r, descending, False) for r in a])
    rows = np.take_along_axis(a, perm, axis=-1)
    assert np.array_equal(gpusort.argsort(a, descending=descending), perm)
    assert same_bits(gpusort.sort(a, descending=descending), rows)
    vals, idx = gpusort.topk(a, 5, largest=descending)
    want = perm[:, :5]  # the largest first with descending, else the smallest
    assert np.array_equal(idx, want) and same_bits(vals, np.take_along_axis(a, want, axis=-1))


def test_narrow_values_are_refused_by_the_pair_sort():
    with pytest.raises(TypeError, match="4- and 8-byte values"):
        gpusort.sort_pairs(np.arange(4, dtype=np.float32), np.arange(4, dtype=np.int8))


def test_host_bfloat16_is_refused_by_name():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="bfloat16 on the device only"):
        gpusort.sort(torch.zeros(4, dtype=torch.bfloat16))


# Device arrays (PyTorch).


@pytest.fixture(scope="module")
def torch():
    def skip_or_fail(why):
        if REQUIRE_GPU:
            pytest.fail(f"GPUSORT_REQUIRE_GPU=1 but {why}")
        pytest.skip(why)

    try:
        import torch
    except ImportError:
        skip_or_fail("PyTorch is not installed")
    if not torch.cuda.is_available():
        skip_or_fail("no CUDA device")
    if not gpusort.backend().startswith("GPU"):
        skip_or_fail(f"gpusort runs on the {gpusort.backend()}")
    return torch


TORCH_NARROW = ["uint8", "int8", "uint16", "int16", "float16", "bfloat16"]


def device_keys(torch, name, n, seed):
    """``n`` keys of torch dtype ``name`` on the device, and their raw bits on the host
    (uint16 / uint8: numpy has no bfloat16)."""
    if name == "bfloat16":
        bits = narrow_keys(np.uint16, n, seed)
        special = np.array(BF16_NANS + [0x0000, 0x8000, 0x7F80, 0xFF80], np.uint16)
        bits = np.where(np.arange(n) % 6 == 0, np.resize(special, n), bits)
        t = torch.from_numpy(bits.view(np.int16).copy()).cuda().view(torch.bfloat16)
        return t, bits
    a = narrow_keys(np.dtype(name), n, seed)
    return torch.from_numpy(a.copy()).cuda(), a.view(f"u{a.dtype.itemsize}")


def host_bits(torch, t):
    """A device tensor's raw bits on the host."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).cpu().numpy().view(np.uint16)
    a = t.cpu().numpy()
    return a.view(f"u{a.dtype.itemsize}")


def order_key_of_bits(name, bits, total_order):
    """The reference order of raw bits of dtype ``name`` (bfloat16: a float32 with the
    same sign, exponent and leading mantissa bits)."""
    if name == "bfloat16":
        f = (bits.astype(np.uint32) << 16).view(np.float32)
    else:
        f = bits.view(np.dtype(name))
    return total_order_key(f) if total_order else numpy_order_key(f)


@pytest.mark.parametrize("name", TORCH_NARROW)
@pytest.mark.parametrize("n", [1, 1001, (1 << 20) + 3])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("total_order", [False, True])
def test_device_sorts_match_numpy(torch, name, n, descending, total_order):
    t, bits = device_keys(torch, name, n, seed=n)
    perm = stable_argsort(order_key_of_bits(name, bits, total_order), descending=descending)
    got = gpusort.sort(t, descending=descending, total_order=total_order)
    assert got.dtype == t.dtype and np.array_equal(host_bits(torch, got), bits[perm])
    idx = gpusort.argsort(t, descending=descending, total_order=total_order)
    assert np.array_equal(idx.cpu().numpy(), perm)
    vals, ix = gpusort.topk(t, min(n, 100), largest=descending, total_order=total_order)
    assert np.array_equal(ix.cpu().numpy(), perm[:100])
    assert np.array_equal(host_bits(torch, vals), bits[perm[:100]])
    keys_out, values_out = gpusort.sort_pairs(
        t, torch.arange(n, device=t.device, dtype=torch.int32), descending=descending, total_order=total_order
    )
    assert np.array_equal(host_bits(torch, keys_out), bits[perm])
    assert np.array_equal(values_out.cpu().numpy(), perm)
    gpusort.sort_(t, descending=descending, total_order=total_order)
    assert np.array_equal(host_bits(torch, t), bits[perm])


@pytest.mark.parametrize("name", TORCH_NARROW)
@pytest.mark.parametrize("shape", [(3, 7), (64, 300), (1000, 33), (4, 9000)])
@pytest.mark.parametrize("descending", [False, True])
def test_device_rows_match_numpy(torch, name, shape, descending):
    rows, cols = shape
    t, bits = device_keys(torch, name, rows * cols, seed=cols)
    t, bits = t.reshape(shape), bits.reshape(shape)
    perm = np.stack([stable_argsort(order_key_of_bits(name, r, False), descending=descending) for r in bits])
    assert np.array_equal(gpusort.argsort(t, descending=descending).cpu().numpy(), perm)
    assert np.array_equal(host_bits(torch, gpusort.sort(t, descending=descending)), np.take_along_axis(bits, perm, -1))
    vals, idx = gpusort.topk(t, 5, largest=descending)
    want = perm[:, :5]  # the largest first with descending, else the smallest
    assert np.array_equal(idx.cpu().numpy(), want)
    assert np.array_equal(host_bits(torch, vals), np.take_along_axis(bits, want, -1))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_device_half_floats_without_nans_take_the_plain_sort(torch, name):
    """Without NaN and -0.0 the plain sort is numpy's order: same bits either way."""
    t = torch.randn(100_003, device="cuda").to(getattr(torch, name))
    t[t == 0] = 1
    a = gpusort.sort(t)
    b = gpusort.sort(t, total_order=True)
    assert torch.equal(a.view(torch.int16), b.view(torch.int16))
    assert torch.equal(a, torch.sort(t, stable=True).values)
