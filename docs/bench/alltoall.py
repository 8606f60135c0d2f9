#!/usr/bin/env python3
"""Ceilings of the all-to-all exchange of the multi-GPU sort on this machine, every GPU
at once, 2 GiB per GPU of which 1/p stays: (1) the copy engines from one process, one
stream per ordered GPU pair (what `Exchange::PeerCopy` does); (2) NCCL's
all_to_all_single, one process per GPU; (3) kernels of each GPU storing 16-byte vectors
into the peers' memory (push) or loading the peers' (pull), with 1, 2 and 4 blocks an
SM (what `Exchange::PeerStore` does, with 16-byte stores). Needs PyTorch with CUDA
and CuPy; 2 and 4 GPUs where present.

    python docs/bench/alltoall.py
"""
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

PER_GPU = 2 << 30


def copies(p, reps=5):
    devs = list(range(p))
    chunk = PER_GPU // p
    src = [torch.empty(PER_GPU, dtype=torch.uint8, device=f"cuda:{d}") for d in devs]
    dst = [torch.empty(PER_GPU, dtype=torch.uint8, device=f"cuda:{d}") for d in devs]
    streams = {(i, j): torch.cuda.Stream(device=i) for i in devs for j in devs if i != j}
    times = []
    for r in range(reps + 1):
        for d in devs: torch.cuda.synchronize(d)
        t = time.perf_counter()
        for (i, j), s in streams.items():
            with torch.cuda.stream(s):
                dst[j][i * chunk:(i + 1) * chunk].copy_(src[i][j * chunk:(j + 1) * chunk], non_blocking=True)
        for s in streams.values(): s.synchronize()
        if r: times.append(time.perf_counter() - t)
    times.sort(); t = times[len(times) // 2]
    moved = p * (p - 1) * chunk
    print(f"copy engines, {p} GPUs: {t*1e3:.3f} ms, {moved/t/1e9:.1f} GB/s over all GPUs, "
          f"{moved/p/t/1e9:.1f} GB/s per GPU each way", flush=True)

def nccl_worker(rank, p, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"; os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=p)
    x = torch.empty(PER_GPU, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    times = []
    for r in range(6):
        torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
        t = time.perf_counter()
        dist.all_to_all_single(y, x)
        torch.cuda.synchronize()
        if r: times.append(time.perf_counter() - t)
    times.sort(); t = times[len(times) // 2]
    if rank == 0:
        moved = p * (p - 1) * (PER_GPU // p)
        print(f"NCCL all_to_all_single, {p} GPUs: {t*1e3:.3f} ms, {moved/t/1e9:.1f} GB/s over all GPUs, "
              f"{moved/p/t/1e9:.1f} GB/s per GPU each way", flush=True)
    dist.destroy_process_group()

SRC = r'''
extern "C" __global__ void copy16(const uint4* __restrict__ src, uint4* __restrict__ dst, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a; dst[i + stride] = b; dst[i + 2 * stride] = c; dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) dst[i] = src[i];
}
'''

def stores(p, mode, blocks_per_sm, reps=5):
    import cupy as cp

    devs = list(range(p))
    for i in devs:
        with cp.cuda.Device(i):
            for j in devs:
                if i != j:
                    try: cp.cuda.runtime.deviceEnablePeerAccess(j)
                    except cp.cuda.runtime.CUDARuntimeError: pass
    src, dst, kern, streams = [], [], [], []
    for d in devs:
        with cp.cuda.Device(d):
            src.append(cp.ones(PER_GPU // 16 * 4, dtype=cp.uint32))
            dst.append(cp.zeros(PER_GPU // 16 * 4, dtype=cp.uint32))
            kern.append(cp.RawKernel(SRC, "copy16"))
            streams.append([cp.cuda.Stream(non_blocking=True) for _ in devs])
    chunk = PER_GPU // p // 16  # uint4 per piece
    times = []
    for r in range(reps + 1):
        for d in devs:
            cp.cuda.Device(d).synchronize()
        t = time.perf_counter()
        for i in devs:
            for j in devs:
                if i == j: continue
                # piece j of GPU i goes to slot i of GPU j
                run_on = i if mode == "push" else j
                s = src[i].data.ptr + j * chunk * 16
                t_ = dst[j].data.ptr + i * chunk * 16
                with cp.cuda.Device(run_on):
                    grid = 132 * blocks_per_sm // (p - 1)
                    kern[run_on]((grid,), (512,), (cp.uint64(s), cp.uint64(t_), cp.uint64(chunk)), stream=streams[run_on][j if mode == "push" else i])
        for d in devs:
            cp.cuda.Device(d).synchronize()
        if r: times.append(time.perf_counter() - t)
    times.sort(); t = times[len(times) // 2]
    moved = p * (p - 1) * chunk * 16
    ok = all(int(dst[j][(i * chunk * 4):(i * chunk * 4) + 4].sum().get()) == 4 for j in devs for i in devs if i != j)
    print(f"SM {mode}, {p} GPUs, {blocks_per_sm} blocks/SM: {t*1e3:.3f} ms, {moved/t/1e9:.1f} GB/s over all GPUs, "
          f"{moved/p/t/1e9:.1f} per GPU each way, data {'ok' if ok else 'WRONG'}", flush=True)
    del src, dst


if __name__ == "__main__":
    n = torch.cuda.device_count()
    print("GPUs:", n, torch.cuda.get_device_name(0), flush=True)
    counts = [p for p in (2, 4) if p <= n]
    for p in counts:
        copies(p)
    for p in counts:
        mp.spawn(nccl_worker, args=(p, 29600 + p), nprocs=p, join=True)
    for p in counts:
        for mode in ("push", "pull"):
            for b in (1, 2, 4):
                stores(p, mode, b)
