#!/bin/bash
# Session 16 run 1: where a 2^28 mergepath sort's time goes, per kernel (block sort,
# merges, partitions), for u32 and u64 keys and u32 + u32 pairs, and at 2^24 for u32.
# nsys when present, else ncu's gpu__time_duration (each kernel alone, caches flushed).
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; rm -rf $B; mkdir -p $B $L
export SORT_REQUIRE_GPU=1
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/cur.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
which nsys ncu > $L/tools.txt 2>&1; ls /usr/local/cuda*/bin 2>/dev/null | grep -i nsys >> $L/tools.txt
NSYS=$(which nsys 2>/dev/null || ls /usr/local/cuda*/bin/nsys 2>/dev/null | head -1)
echo "nsys=$NSYS"
prof() { # name, then the host command
  local name=$1; shift
  if [ -n "$NSYS" ]; then
    $NSYS profile -t cuda -o /tmp/p_$name --force-overwrite true "$@" > $L/${name}_run.txt 2>&1
    $NSYS stats -r cuda_gpu_kern_sum -f csv /tmp/p_$name.nsys-rep > $L/${name}_kern.csv 2>&1
  else
    ncu --metrics gpu__time_duration.sum --csv --kernel-name regex:mergepath "$@" > $L/${name}_ncu.csv 2>&1
  fi
}
prof u32_28 $B/host bench --require-gpu --variants mergepath --type u32 --n 2^28 --repeat 1
prof u64_28 $B/host bench --require-gpu --variants mergepath --type u64 --n 2^28 --repeat 1
prof pairs_28 $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^28 --repeat 1
prof u32_24 $B/host bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1
prof u64_24 $B/host bench --require-gpu --variants mergepath --type u64 --n 2^24 --repeat 1
fin
