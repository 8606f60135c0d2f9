"""gpusort against PyTorch on the same CUDA tensors: sort (in place and into a new
tensor) and torch.sort of 2^24 and 2^28 float32 keys, argsort against torch.argsort
(stable), sort_pairs against a stable torch.sort and a gather of the values, top-k
(k = 100 of 2^26) against torch.topk, searchsorted (2^24 queries in 2^26 keys) against
torch.searchsorted, unique_consecutive and unique (2^26 keys, 2^20 distinct) against
torch's, row-wise sort (4,096 x 4,096 float32, dim=-1) against torch.sort and
top-k (k = 50 of each row of 128 x 50,257 float32) against torch.topk, the cost of
numpy's NaN order (the default) over total_order=True (argsort of f32 and f16 with NaNs
and -0.0; the NaN check sort makes, the library's against torch's), and the call overhead of a
1,000-key sort; the 16-bit floats (``--ops half``): sort of 2^24 and 2^28 float16 and
bfloat16 against torch.sort, in numpy's order without NaNs (the plain sort after
one check), with NaNs present (the sort by canonical bits) and in total order, and their
argsort against torch.argsort (stable, and stable=False). Device times are CUDA events on the
current stream around each call (gpusort joins its own stream to it), after warm-up;
inputs restored before each repeat outside the timed range; medians. Needs PyTorch
with CUDA. Operations the installed gpusort lacks are left out, so an older build can
be measured by the same script.

    python python/bench.py [--repeat 15] [--json results.json] [--ops argsort,pairs]
"""

import argparse
import json
import statistics
import time

import torch

import gpusort


def device_ms(fn, *, repeat, restore=None, warmup=2):
    """Median milliseconds of ``fn()`` between two CUDA events on the current stream."""
    times = []
    for i in range(warmup + repeat):
        if restore is not None:
            restore()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        if i >= warmup:
            times.append(start.elapsed_time(end))
    return statistics.median(times)


def wall_us(fn, *, repeat, warmup=20):
    """Median microseconds of ``fn()`` and a synchronisation, by the wall clock: what a
    caller waits for one small call."""
    times = []
    for i in range(warmup + repeat):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


OPS = ("sort", "argsort", "pairs", "topk", "search", "unique", "rows", "overhead", "half")


def has_keyword(fn, name):
    """Whether the installed gpusort's ``fn`` takes keyword ``name`` (older builds
    lack ``dim`` and ``total_order``)."""
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def gkeys(n, ms):
    return n / (ms * 1e-3) / 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15, help="timed repeats per measurement (median)")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--max-log2", type=int, default=28, help="skip sizes above 2^this")
    p.add_argument("--ops", default=",".join(OPS), help=f"comma-separated subset of {','.join(OPS)}")
    args = p.parse_args()
    ops = set(args.ops.split(","))
    if not ops <= set(OPS):
        p.error(f"unknown --ops {sorted(ops - set(OPS))}")

    print(f"gpusort {gpusort.__version__} on {gpusort.backend()}; torch {torch.__version__}")
    rows = []

    def row(what, n, ms_ours, ms_torch, note=""):
        r = {
            "what": what,
            "n": n,
            "gpusort_ms": round(ms_ours, 4),
            "torch_ms": round(ms_torch, 4),
            "speedup": round(ms_torch / ms_ours, 3),
            "gpusort_gkeys": round(gkeys(n, ms_ours), 3),
            "torch_gkeys": round(gkeys(n, ms_torch), 3),
            "note": note,
        }
        rows.append(r)
        print(
            f"{what:<34} n=2^{n.bit_length() - 1:<3} gpusort {ms_ours:9.3f} ms ({r['gpusort_gkeys']:6.2f} Gkeys/s)   "
            f"torch {ms_torch:9.3f} ms ({r['torch_gkeys']:6.2f} Gkeys/s)   x{r['speedup']:.2f}  {note}",
            flush=True,
        )

    gen = torch.Generator(device="cuda").manual_seed(1)
    for log2 in (24, 28):
        if log2 > args.max_log2 or "half" not in ops:
            continue
        n = 1 << log2
        rep = args.repeat if log2 < 28 else max(3, args.repeat // 3)
        for dtype in (torch.float16, torch.bfloat16):
            name = "f16" if dtype == torch.float16 else "bf16"
            keys = torch.randn(n, device="cuda", generator=gen).to(dtype)
            keys[keys == 0] = 1  # no -0.0: numpy's order is the plain sort's
            theirs = device_ms(lambda: torch.sort(keys), repeat=rep)
            theirs_stable = device_ms(lambda: torch.sort(keys, stable=True), repeat=rep)
            ours = device_ms(lambda: gpusort.sort(keys), repeat=rep)
            row(f"sort {name}, no NaN (numpy order)", n, ours, theirs)
            row(f"sort {name} vs torch stable=True", n, ours, theirs_stable)
            ours_total = device_ms(lambda: gpusort.sort(keys, total_order=True), repeat=rep)
            row(f"sort {name} total_order=True", n, ours_total, theirs)
            with_nans = keys.clone()
            with_nans[:: 1 << 10] = float("nan")
            theirs_nan = device_ms(lambda: torch.sort(with_nans), repeat=rep)
            ours_nan = device_ms(lambda: gpusort.sort(with_nans), repeat=rep)
            row(f"sort {name} with NaNs (NaN-last)", n, ours_nan, theirs_nan, "NaN check, then passes carrying the keys")
            if not torch.equal(gpusort.sort(keys), torch.sort(keys, stable=True).values):
                print(f"MISMATCH: gpusort.sort {name} != torch.sort(stable=True)")
            ours_arg = device_ms(lambda: gpusort.argsort(keys), repeat=rep)
            theirs_arg = device_ms(lambda: torch.argsort(keys, stable=True), repeat=rep)
            row(f"argsort {name} (stable, int64)", n, ours_arg, theirs_arg)
            ours_arg_loose = device_ms(lambda: gpusort.argsort(keys, stable=False), repeat=rep)
            theirs_arg_loose = device_ms(lambda: torch.argsort(keys), repeat=rep)
            row(f"argsort {name} stable=False (int64)", n, ours_arg_loose, theirs_arg_loose, "torch.argsort's default")
            if not torch.equal(gpusort.argsort(keys), torch.argsort(keys, stable=True)):
                print(f"MISMATCH: gpusort.argsort {name} != torch.argsort(stable=True)")
            loose = gpusort.argsort(keys, stable=False)
            if not torch.equal(keys[loose], torch.sort(keys).values):
                print(f"MISMATCH: keys[gpusort.argsort({name}, stable=False)] != torch.sort(keys).values")
            del keys, with_nans, loose
    for log2 in (24, 28):
        if log2 > args.max_log2 or not ops & {"sort", "argsort", "pairs"}:
            continue
        n = 1 << log2
        keys = torch.randn(n, device="cuda", generator=gen)
        rep = args.repeat if log2 < 28 else max(3, args.repeat // 3)
        theirs = device_ms(lambda: torch.sort(keys), repeat=rep)
        if "sort" in ops:
            work = torch.empty_like(keys)
            restore = lambda: work.copy_(keys)  # noqa: E731
            ours_inplace = device_ms(lambda: gpusort.sort_(work), repeat=rep, restore=restore)
            ours_new = device_ms(lambda: gpusort.sort(keys), repeat=rep)
            theirs_stable = device_ms(lambda: torch.sort(keys, stable=True), repeat=rep)
            row("sort f32, in place (sort_)", n, ours_inplace, theirs, "torch.sort returns values and indices")
            row("sort f32, new tensor", n, ours_new, theirs)
            row("sort f32 vs torch stable=True", n, ours_new, theirs_stable)
            if has_keyword(gpusort.sort, "total_order"):
                ours_total = device_ms(lambda: gpusort.sort(keys, total_order=True), repeat=rep)
                row("sort f32 total_order=True", n, ours_total, theirs_stable, "no NaN-canonical copy")
            # NaNs present: the check finds them and the sort starts over in numpy's
            # order (the canonical copy's pair sort) from the untouched keys.
            with_nans = keys.clone()
            with_nans[::97] = float("nan")
            theirs_nan = device_ms(lambda: torch.sort(with_nans, stable=True), repeat=rep)
            ours_nan = device_ms(lambda: gpusort.sort(with_nans), repeat=rep)
            row("sort f32 with NaNs, new tensor", n, ours_nan, theirs_nan, "numpy order; torch stable=True")
            ours_nan_inplace = device_ms(lambda: gpusort.sort_(work), repeat=rep, restore=lambda: work.copy_(with_nans))
            row("sort f32 with NaNs, in place", n, ours_nan_inplace, theirs_nan, "numpy order; torch stable=True")
            del work, with_nans
            check = getattr(gpusort._gpusort, "has_nan_or_negative_zero_device", None)
            if check is not None:
                # The check numpy's order makes before a sort: the library's pass
                # against torch's elementwise one (NaN, or -0.0's bits).
                def torch_check(a):
                    return bool((a != a).any() | (a.view(torch.int32) == -(2**31)).any())

                stream = torch.cuda.current_stream().cuda_stream
                ours_c = device_ms(lambda: check(keys, stream), repeat=rep)
                theirs_c = device_ms(lambda: torch_check(keys), repeat=rep)
                row("NaN/-0.0 check f32", n, ours_c, theirs_c, "library pass vs torch elementwise")
        if "argsort" in ops:
            ours_arg = device_ms(lambda: gpusort.argsort(keys), repeat=rep)
            theirs_arg = device_ms(lambda: torch.argsort(keys, stable=True), repeat=rep)
            row("argsort f32 (stable, int64)", n, ours_arg, theirs_arg)
            # Check once that both agree (same stable permutation).
            if not torch.equal(gpusort.argsort(keys), torch.argsort(keys, stable=True)):
                print("MISMATCH: gpusort.argsort != torch.argsort(stable=True)")
            # torch.argsort's default (stable=False) against ours, whose first pass then
            # ranks ties in any order: a sorting permutation, checked by the keys it picks.
            ours_loose = device_ms(lambda: gpusort.argsort(keys, stable=False), repeat=rep)
            theirs_loose = device_ms(lambda: torch.argsort(keys), repeat=rep)
            row("argsort f32 stable=False (int64)", n, ours_loose, theirs_loose, "torch.argsort's default")
            loose = gpusort.argsort(keys, stable=False)
            if not torch.equal(keys[loose], torch.sort(keys).values):
                print("MISMATCH: keys[gpusort.argsort(stable=False)] != torch.sort(keys).values")
            del loose
            if has_keyword(gpusort.argsort, "total_order"):
                ours_total = device_ms(lambda: gpusort.argsort(keys, total_order=True), repeat=rep)
                row("argsort f32 total_order=True", n, ours_total, theirs_arg, "no NaN-canonical copy")
            # numpy's order with NaNs (both signs, payloads) and -0.0 present: the argsort
            # passes map them as they read the keys, so it should cost what total order does.
            specials = keys.clone()
            specials[::97] = float("nan")
            specials[1::89] = -0.0
            specials.view(torch.int32)[2::101] = -4194304  # 0xffc00000: a negative quiet NaN
            ours_nan = device_ms(lambda: gpusort.argsort(specials), repeat=rep)
            theirs_nan = device_ms(lambda: torch.argsort(specials, stable=True), repeat=rep)
            row("argsort f32 with NaNs and -0.0", n, ours_nan, theirs_nan, "numpy order")
            if has_keyword(gpusort.argsort, "total_order"):
                ours_nan_total = device_ms(lambda: gpusort.argsort(specials, total_order=True), repeat=rep)
                row("argsort f32 with NaNs, total_order", n, ours_nan_total, theirs_nan,
                    f"numpy order / total order = {ours_nan / ours_nan_total:.3f}")
            # torch orders NaNs by payload, numpy's order keeps them in input order:
            # compare on the keys with one NaN.
            one_nan = keys.clone()
            one_nan[::97] = float("nan")
            if not torch.equal(gpusort.argsort(one_nan), torch.argsort(one_nan, stable=True)):
                print("MISMATCH: gpusort.argsort != torch.argsort(stable=True) (with NaNs)")
            del specials, one_nan
            hkeys = keys.to(torch.float16)
            hkeys[hkeys == 0] = 1
            hkeys[::97] = float("nan")
            ours_h = device_ms(lambda: gpusort.argsort(hkeys), repeat=rep)
            theirs_h = device_ms(lambda: torch.argsort(hkeys, stable=True), repeat=rep)
            row("argsort f16 with NaNs", n, ours_h, theirs_h, "numpy order")
            if has_keyword(gpusort.argsort, "total_order"):
                ours_h_total = device_ms(lambda: gpusort.argsort(hkeys, total_order=True), repeat=rep)
                row("argsort f16 total_order=True", n, ours_h_total, theirs_h)
            if not torch.equal(gpusort.argsort(hkeys), torch.argsort(hkeys, stable=True)):
                print("MISMATCH: gpusort.argsort != torch.argsort(stable=True) (float16)")
            del hkeys
            ikeys = torch.randint(-(2**31), 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=gen)
            ours_i = device_ms(lambda: gpusort.argsort(ikeys), repeat=rep)
            theirs_i = device_ms(lambda: torch.argsort(ikeys, stable=True), repeat=rep)
            row("argsort i32 (stable, int64)", n, ours_i, theirs_i)
            ours_i_loose = device_ms(lambda: gpusort.argsort(ikeys, stable=False), repeat=rep)
            theirs_i_loose = device_ms(lambda: torch.argsort(ikeys), repeat=rep)
            row("argsort i32 stable=False (int64)", n, ours_i_loose, theirs_i_loose, "torch.argsort's default")
            if not torch.equal(gpusort.argsort(ikeys), torch.argsort(ikeys, stable=True)):
                print("MISMATCH: gpusort.argsort != torch.argsort(stable=True) (int32)")
            del ikeys
        if "pairs" in ops:
            # What a torch user writes for a pair sort: a stable sort and a gather.
            def torch_pairs(k, v):
                s, i = torch.sort(k, stable=True)
                return s, v[i]

            for vdtype in (torch.int64, torch.int32):
                values = torch.arange(n, device="cuda").to(vdtype)
                ours_p = device_ms(lambda: gpusort.sort_pairs(keys, values), repeat=rep)
                theirs_p = device_ms(lambda: torch_pairs(keys, values), repeat=rep)
                row(f"sort_pairs f32 keys, {str(vdtype)[6:]} values", n, ours_p, theirs_p, "torch: sort(stable) + gather")
                gk, gv = gpusort.sort_pairs(keys, values)
                tk, tv = torch_pairs(keys, values)
                if not (torch.equal(gk, tk) and torch.equal(gv, tv)):
                    print(f"MISMATCH: gpusort.sort_pairs != torch.sort + gather ({vdtype})")
                del values, gk, gv, tk, tv
        del keys
        torch.cuda.empty_cache()

    if "search" in ops and hasattr(gpusort, "searchsorted") and args.max_log2 >= 26:
        # 2^24 queries in 2^26 keys, both uniform in 0..2^31 - 1 (int32).
        n, m = 1 << 26, 1 << 24
        sorted_keys = torch.sort(torch.randint(0, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=gen)).values
        queries = torch.randint(0, 2**31 - 1, (m,), device="cuda", dtype=torch.int32, generator=gen)
        sorted_queries = torch.sort(queries).values
        for what, q, promise in (("unsorted", queries, False), ("sorted", sorted_queries, True)):
            ours = device_ms(lambda: gpusort.searchsorted(sorted_keys, q, queries_sorted=promise), repeat=args.repeat)
            theirs = device_ms(lambda: torch.searchsorted(sorted_keys, q), repeat=args.repeat)
            note = "queries_sorted=True" if promise else "binary search per query"
            row(f"searchsorted i32, {what} queries", m, ours, theirs, note)
            if not torch.equal(gpusort.searchsorted(sorted_keys, q, queries_sorted=promise), torch.searchsorted(sorted_keys, q)):
                print(f"MISMATCH: gpusort.searchsorted != torch.searchsorted ({what} queries)")
        del sorted_keys, queries, sorted_queries
        torch.cuda.empty_cache()

    if "unique" in ops and hasattr(gpusort, "unique") and args.max_log2 >= 26:
        # 2^26 int32 keys uniform in 0..2^20: about 2^20 distinct values.
        n = 1 << 26
        keys = torch.randint(0, 1 << 20, (n,), device="cuda", dtype=torch.int32, generator=gen)
        runs = torch.sort(keys).values
        ours = device_ms(lambda: gpusort.unique_consecutive(runs, return_counts=True), repeat=args.repeat)
        theirs = device_ms(lambda: torch.unique_consecutive(runs, return_counts=True), repeat=args.repeat)
        row("unique_consecutive i32, counts", n, ours, theirs, "sorted keys, ~2^20 runs")
        gv, gc = gpusort.unique_consecutive(runs, return_counts=True)
        tv, tc = torch.unique_consecutive(runs, return_counts=True)
        if not (torch.equal(gv, tv) and torch.equal(gc, tc)):
            print("MISMATCH: gpusort.unique_consecutive != torch.unique_consecutive")
        ours = device_ms(lambda: gpusort.unique(keys, return_counts=True), repeat=args.repeat)
        theirs = device_ms(lambda: torch.unique(keys, return_counts=True), repeat=args.repeat)
        row("unique i32 (unsorted), counts", n, ours, theirs, "sort included")
        gv, gc = gpusort.unique(keys, return_counts=True)
        tv, tc = torch.unique(keys, return_counts=True)
        if not (torch.equal(gv, tv) and torch.equal(gc, tc)):
            print("MISMATCH: gpusort.unique != torch.unique")
        del keys, runs, gv, gc, tv, tc
        torch.cuda.empty_cache()

    if "topk" in ops and args.max_log2 >= 26:
        n = 1 << 26
        keys = torch.randn(n, device="cuda", generator=gen)
        ours = device_ms(lambda: gpusort.topk(keys, 100), repeat=args.repeat)
        theirs = device_ms(lambda: torch.topk(keys, 100), repeat=args.repeat)
        row("topk k=100 f32 (largest)", n, ours, theirs)
        v, i = gpusort.topk(keys, 100)
        tv, _ = torch.topk(keys, 100)
        if not torch.equal(v, tv):
            print("MISMATCH: gpusort.topk values != torch.topk values")
        del keys
        torch.cuda.empty_cache()

    if "rows" in ops and has_keyword(gpusort.sort, "dim"):
        m = torch.randn(4096, 4096, device="cuda", generator=gen)
        ours = device_ms(lambda: gpusort.sort(m, dim=-1), repeat=args.repeat)
        theirs = device_ms(lambda: torch.sort(m, dim=-1, stable=True), repeat=args.repeat)
        theirs_fast = device_ms(lambda: torch.sort(m, dim=-1), repeat=args.repeat)
        row("sort rows 4096 x 4096 f32, dim=-1", m.numel(), ours, theirs, "torch stable=True")
        row("sort rows 4096 x 4096 f32, dim=-1", m.numel(), ours, theirs_fast, "torch default")
        ours_total = device_ms(lambda: gpusort.sort(m, dim=-1, total_order=True), repeat=args.repeat)
        row("sort rows 4096 x 4096 f32 total_order", m.numel(), ours_total, theirs, "torch stable=True")
        ours_arg = device_ms(lambda: gpusort.argsort(m, dim=-1), repeat=args.repeat)
        theirs_arg = device_ms(lambda: torch.argsort(m, dim=-1, stable=True), repeat=args.repeat)
        row("argsort rows 4096 x 4096 f32", m.numel(), ours_arg, theirs_arg, "torch stable=True")
        if not torch.equal(gpusort.sort(m, dim=-1), torch.sort(m, dim=-1, stable=True).values):
            print("MISMATCH: gpusort.sort(dim=-1) != torch.sort(dim=-1)")
        logits = torch.randn(128, 50257, device="cuda", generator=gen)
        ours = device_ms(lambda: gpusort.topk(logits, 50, dim=-1), repeat=args.repeat)
        theirs = device_ms(lambda: torch.topk(logits, 50, dim=-1), repeat=args.repeat)
        row("topk rows 128 x 50257 f32, k=50", logits.numel(), ours, theirs)
        ours_total = device_ms(lambda: gpusort.topk(logits, 50, dim=-1, total_order=True), repeat=args.repeat)
        row("topk rows 128 x 50257 f32 total_order", logits.numel(), ours_total, theirs)
        if not torch.equal(gpusort.topk(logits, 50, dim=-1)[0], torch.topk(logits, 50, dim=-1)[0]):
            print("MISMATCH: gpusort.topk(dim=-1) values != torch.topk values")
        del m, logits
        torch.cuda.empty_cache()

    if "overhead" in ops:
        n = 1000
        small = torch.randn(n, device="cuda", generator=gen)
        ours_us = wall_us(lambda: gpusort.sort(small), repeat=200)
        theirs_us = wall_us(lambda: torch.sort(small), repeat=200)
        ours_dev = device_ms(lambda: gpusort.sort(small), repeat=200, warmup=20)
        theirs_dev = device_ms(lambda: torch.sort(small), repeat=200, warmup=20)
        rows.append({"what": "call overhead, sort of 1000 f32", "n": n, "gpusort_wall_us": round(ours_us, 2),
                     "torch_wall_us": round(theirs_us, 2), "gpusort_device_ms": round(ours_dev, 4),
                     "torch_device_ms": round(theirs_dev, 4)})
        print(f"{'call overhead, sort of 1000 f32':<34} wall (call + sync): gpusort {ours_us:8.1f} us   torch {theirs_us:8.1f} us;"
              f"  events: gpusort {ours_dev * 1e3:8.1f} us   torch {theirs_dev * 1e3:8.1f} us")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "backend": gpusort.backend(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
