#!/bin/bash
# Session 8 run 2: radix pairs, digits in shared memory (B23: 23 items 2 blocks/SM; B20: 20 items 3 blocks/SM; B22: 22 items 3 blocks/SM, spills 24 B) vs base; CUB.
B=/tmp/bundle; L=$OUT/logs; mkdir -p $L
export SORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
cd $B
for f in base B23 B20 B22; do xz -d $f.ptx.xz; done
run() { local v=$1; shift; SORT_PTX_FILE=$B/$v.ptx $B/host$v "$@"; }
fin() { cd $OUT && tar czf logs.tgz logs; }
for v in base B23 B20 B22; do run $v bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; done
for r in 1 2 3; do
  for v in base B23 B20 B22; do
    run $v bench-pairs --type u32 --values u32 --n 2^20,2^22,2^24,2^28 --repeat 10 > $L/pairs_${v}_r$r.txt 2>&1
  done
  date >> $L/times.txt
  [ $r = 1 ] && { nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $B/cub_anchor.cu > $L/nvcc.txt 2>&1 && /tmp/cub_anchor > $L/cub.txt 2>&1; }
  fin
done
for v in base B23 B20; do
  run $v bench-pairs --type u32,u64 --values u64 --n 2^24,2^28 --repeat 10 > $L/pairs64_${v}.txt 2>&1
  run $v bench-pairs --type u64 --values u32 --n 2^24,2^28 --repeat 10 > $L/pairsk64_${v}.txt 2>&1
  run $v bench-pairs --type u32 --values u32 --n 2^24 --repeat 10 --argsort > $L/argsort_${v}.txt 2>&1
done
fin
