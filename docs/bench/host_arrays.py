"""Host arrays sorted on the GPU: gpusort's sort (new array and in place), argsort and
sort_pairs (int64 values) of numpy float32 arrays, each an upload, the sort and a
download, against torch's round trip of the same host array (`torch.from_numpy(a)
.cuda()`, the sort, `.cpu()`) and numpy.sort; wall clock, medians.

    PYTHONPATH=<the unpacked wheel> /opt/torch/.venv/bin/python docs/bench/host_arrays.py
"""
import time, statistics
import numpy as np
import torch
import gpusort

def med(f, k):
    f()
    ts = []
    for _ in range(k):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3

print("backend", gpusort.backend(), "torch", torch.__version__, "numpy", np.__version__)
rng = np.random.default_rng(1)
for e in (20, 22, 24, 26, 28):
    n = 1 << e
    a = rng.random(n, dtype=np.float32)
    k = 9 if e < 28 else 5
    ours = med(lambda: gpusort.sort(a), k)
    b = a.copy()
    def inplace():
        b[:] = a
        gpusort.sort_(b)
    copy_only = med(lambda: b.__setitem__(slice(None), a), k)
    ours_inplace = med(inplace, k) - copy_only
    theirs = med(lambda: torch.from_numpy(a).cuda().sort(stable=True).values.cpu().numpy(), k)
    if e <= 24:
        nps = med(lambda: np.sort(a, kind="stable"), 3)
        ok = np.array_equal(gpusort.sort(a), np.sort(a, kind="stable"))
    else:
        nps, ok = float("nan"), bool(np.all(np.diff(gpusort.sort(a)) >= 0))
    ours_arg = med(lambda: gpusort.argsort(a), k)
    theirs_arg = med(lambda: torch.from_numpy(a).cuda().argsort(stable=True).cpu().numpy(), k)
    fresh = med(lambda: np.empty(n, np.int64).fill(1), k)
    v = np.arange(n, dtype=np.int64)
    ours_pairs = med(lambda: gpusort.sort_pairs(a, v), k)
    def tp():
        kk, i = torch.from_numpy(a).cuda().sort(stable=True)
        return kk.cpu().numpy(), torch.from_numpy(v).cuda()[i].cpu().numpy()
    theirs_pairs = med(tp, k)
    print(f"2^{e} f32: sort {ours:.2f} ms (in place {ours_inplace:.2f}), torch round trip {theirs:.2f} "
          f"({theirs/ours:.2f}x), numpy.sort {nps:.1f} ({nps/ours:.1f}x); argsort {ours_arg:.2f} vs torch "
          f"{theirs_arg:.2f} ({theirs_arg/ours_arg:.2f}x; filling a new int64 array {fresh:.2f}); "
          f"sort_pairs int64 values {ours_pairs:.2f} vs torch {theirs_pairs:.2f} ({theirs_pairs/ours_pairs:.2f}x); "
          f"equal to numpy: {ok}", flush=True)
