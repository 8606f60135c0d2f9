# Times the CUDA driver's start-up steps through ctypes (no CUDA toolkit needed), for
# comparison with `SORT_TRACE=1 host sort`: library load, cuInit, primary context,
# three 64 MiB pinned buffers, a 1 GiB device buffer, and releasing them.
import ctypes, time
t = [("start", time.perf_counter())]
def mark(what): t.append((what, time.perf_counter()))
cu = ctypes.CDLL("libcuda.so.1"); mark("dlopen libcuda")
assert cu.cuInit(0) == 0; mark("cuInit")
dev = ctypes.c_int(); assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
ctx = ctypes.c_void_p(); assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert cu.cuCtxSetCurrent(ctx) == 0; mark("primary context")
free = ctypes.c_size_t(); total = ctypes.c_size_t(); cu.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)); mark("cuMemGetInfo")
hs = []
for i in range(3):
    p = ctypes.c_void_p(); assert cu.cuMemHostAlloc(ctypes.byref(p), 64 << 20, 0) == 0; hs.append(p)
mark("3 x 64 MiB cuMemHostAlloc")
d = ctypes.c_uint64(); assert cu.cuMemAlloc_v2(ctypes.byref(d), 1 << 30) == 0; mark("1 GiB cuMemAlloc")
cu.cuMemFree_v2(d); mark("cuMemFree")
for p in hs: cu.cuMemFreeHost(p)
mark("cuMemFreeHost x3")
cu.cuDevicePrimaryCtxRelease(dev); mark("primary context released")
for (a, ta), (b, tb) in zip(t, t[1:]):
    print(f"{b:32s} {1e3 * (tb - ta):8.1f} ms   (at {1e3 * (tb - t[0][1]):8.1f} ms)")
