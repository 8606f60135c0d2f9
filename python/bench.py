"""gpusort against PyTorch on the same CUDA tensors: sort (in place and into a new
tensor) and torch.sort of 2^24 and 2^28 float32 keys, argsort against torch.argsort
(stable), top-k (k = 100 of 2^26) against torch.topk, and the call overhead of a
1,000-key sort. Device times are CUDA events on the current stream around each call
(gpusort joins its own stream to it), after warm-up; inputs restored before each
repeat outside the timed range; medians. Needs PyTorch with CUDA.

    python python/bench.py [--repeat 15] [--json results.json]
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


def gkeys(n, ms):
    return n / (ms * 1e-3) / 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15, help="timed repeats per measurement (median)")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--max-log2", type=int, default=28, help="skip sizes above 2^this")
    args = p.parse_args()

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
        if log2 > args.max_log2:
            continue
        n = 1 << log2
        keys = torch.randn(n, device="cuda", generator=gen)
        work = torch.empty_like(keys)
        restore = lambda: work.copy_(keys)  # noqa: E731
        rep = args.repeat if log2 < 28 else max(3, args.repeat // 3)
        ours_inplace = device_ms(lambda: gpusort.sort_(work), repeat=rep, restore=restore)
        ours_new = device_ms(lambda: gpusort.sort(keys), repeat=rep)
        theirs = device_ms(lambda: torch.sort(keys), repeat=rep)
        theirs_stable = device_ms(lambda: torch.sort(keys, stable=True), repeat=rep)
        row("sort f32, in place (sort_)", n, ours_inplace, theirs, "torch.sort returns values and indices")
        row("sort f32, new tensor", n, ours_new, theirs)
        row("sort f32 vs torch stable=True", n, ours_new, theirs_stable)
        ours_arg = device_ms(lambda: gpusort.argsort(keys), repeat=rep)
        theirs_arg = device_ms(lambda: torch.argsort(keys, stable=True), repeat=rep)
        row("argsort f32 (stable, int64)", n, ours_arg, theirs_arg)
        # Where argsort's time goes: the library's u32 indices copied into an int32
        # tensor, then widened to int64 by torch.
        idx32 = torch.empty(n, dtype=torch.int32, device="cuda")
        stream = torch.cuda.current_stream().cuda_stream
        ours_u32 = device_ms(lambda: gpusort._gpusort.argsort_device(keys, idx32, False, stream), repeat=rep)
        widen = device_ms(lambda: idx32.to(torch.int64), repeat=rep)
        row("  of which: u32 indices (no widening)", n, ours_u32, theirs_arg)
        row("  of which: int32 -> int64 (torch)", n, widen, theirs_arg)
        del idx32
        # Check once that both agree (same stable permutation).
        if not torch.equal(gpusort.argsort(keys), torch.argsort(keys, stable=True)):
            print("MISMATCH: gpusort.argsort != torch.argsort(stable=True)")
        del keys, work
        torch.cuda.empty_cache()

    if args.max_log2 >= 26:
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
