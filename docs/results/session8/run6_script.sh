#!/bin/bash
# Session 8 run 6: u32 + u32 pairs tile size (items per thread 21, 23 = H, 24, 25; 2 blocks/SM), three rounds; OOM test alone.
B=/tmp/bundle; L=$OUT/logs; mkdir -p $L
export SORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
cd $B; for f in H I21 I24 I25; do xz -d $f.ptx.xz; done
fin() { cd $OUT && tar czf logs.tgz logs; cd $B; }
$B/gpu_radix --ignored radix_out_of_memory > $L/t_gpu_radix_oom.txt 2>&1; echo "rc=$?" >> $L/t_gpu_radix_oom.txt
run() { local v=$1; shift; SORT_PTX_FILE=$B/$v.ptx $B/host$v "$@"; }
for v in H I21 I24 I25; do run $v bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; done
for r in 1 2 3; do
  for v in H I21 I24 I25; do
    run $v bench-pairs --type u32 --values u32 --n 2^20,2^22,2^24,2^28 --repeat 10 > $L/pairs_${v}_r$r.txt 2>&1
  done
  fin
done
for v in H I21 I24 I25; do run $v bench-pairs --type u32 --values u32 --n 2^24 --repeat 10 --argsort > $L/argsort_${v}.txt 2>&1; done
nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $B/cub_anchor.cu > $L/nvcc.txt 2>&1 && /tmp/cub_anchor > $L/cub.txt 2>&1
fin
