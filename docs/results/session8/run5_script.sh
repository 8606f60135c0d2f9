#!/bin/bash
# Session 8 run 5: the committed build (H histogram): radix tests incl. ignored (2^28, past 2^31), file sort, limits, multi (skips);
# O2 (order bits once, no digit bound tests) vs H; base vs H at 2^20; CUB.
B=/tmp/bundle; L=$OUT/logs; mkdir -p $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
cd $B; for f in base H O2; do xz -d $f.ptx.xz; done
fin() { cd $OUT && tar czf logs.tgz logs; cd $B; }
$B/gpu_radix --include-ignored > $L/t_gpu_radix_all.txt 2>&1; echo "rc=$?" >> $L/t_gpu_radix_all.txt
for t in gpu_file_sort gpu_limits gpu_multi; do $B/$t > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt; done
fin
run() { local v=$1; shift; SORT_PTX_FILE=$B/$v.ptx $B/host "$@"; }
for v in base H O2; do run $v bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; done
for r in 1 2; do
  for v in H O2; do
    run $v bench --require-gpu --variants radix --type u32,u64 --n 2^20,2^24,2^28 --repeat 10 > $L/keys_${v}_r$r.txt 2>&1
    run $v bench-pairs --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/pairs_${v}_r$r.txt 2>&1
  done
  fin
done
for r in 1 2 3; do for v in base H; do
  run $v bench --require-gpu --variants radix --type u32 --n 2^20,2^22 --repeat 20 > $L/small_${v}_r$r.txt 2>&1
done; done
fin
nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $B/cub_anchor.cu > $L/nvcc.txt 2>&1 && /tmp/cub_anchor > $L/cub.txt 2>&1
$B/host bench --require-gpu --variants radix --type u32,u64,f32,i64 --n 2^20,2^24,2^28 --repeat 10 > $L/final_keys.txt 2>&1
$B/host bench-pairs --type u32,u64 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/final_pairs.txt 2>&1
fin
