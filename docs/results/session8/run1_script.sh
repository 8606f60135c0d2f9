#!/bin/bash
# Session 8 run 1: radix pairs staging variants (base / A early value loads / C values staged with keys), CUB, gpu_radix tests of A.
B=/tmp/bundle; L=$OUT/logs; mkdir -p $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
cd $B
for f in base A C; do xz -d $f.ptx.xz; done
run() { # variant, args...
  local v=$1; shift
  local h=$B/host; [ $v = C ] && h=$B/hostC
  SORT_PTX_FILE=$B/$v.ptx $h "$@"
}
fin() { cd $OUT && tar czf logs.tgz logs; }
for v in base A C; do run $v bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; done   # JIT warm
pairs() { # round, sizes, extra
  for v in base A C; do
    for vt in u32 u64; do
      run $v bench-pairs --type u32,u64 --values $vt --n $2 --repeat 10 $3 > $L/pairs_${v}_${vt}_r$1.txt 2>&1
    done
  done
  date >> $L/times.txt
}
pairs 1 2^24,2^28 --check
nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $B/cub_anchor.cu > $L/nvcc.txt 2>&1 && /tmp/cub_anchor > $L/cub.txt 2>&1
SORT_REQUIRE_GPU=1 $B/gpu_radix > $L/t_gpu_radix.txt 2>&1; echo "rc=$?" >> $L/t_gpu_radix.txt
fin
pairs 2 2^24,2^28
fin
pairs 3 2^24
for v in base A C; do run $v bench-pairs --type u32 --values u32 --n 2^24 --repeat 10 --argsort > $L/argsort_$v.txt 2>&1; done
fin
for v in base A C; do run $v bench --require-gpu --variants radix --type u32,u64 --n 2^24 --repeat 10 > $L/keys_$v.txt 2>&1; done
fin
