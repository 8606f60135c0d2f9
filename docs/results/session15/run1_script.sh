#!/bin/bash
# Session 15 run 1: L2 reuse between mergepath passes (evict-first input loads, every
# other pass reversed). prev = main 4dd088f's host (in-merge threshold forced to 4 as
# on main), new with SORT_MERGEPATH_REVERSE=0 (loads only), new (both); alternated
# twice. ncu DRAM bytes of two consecutive merges at 2^24 u32. gpu_mergepath and
# gpu_records on the new build. CUB in the same call.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/new.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
bk() { # name host [env...]
  local name=$1 h=$2; shift 2
  env "$@" $h bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^24,2^26,2^28 --repeat 10 > $L/${name}_keys.txt 2>&1
  env "$@" $h bench-pairs --variant mergepath --type u32 --values u32 --n 2^22,2^24,2^28 --repeat 10 > $L/${name}_pairs.txt 2>&1
  echo "$name: $(grep -h '^mergepath ' $L/${name}_keys.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/${name}_pairs.txt | awk '{printf "%s ", $6}')"; }
for round in 1 2; do
  bk prev$round $P/host SORT_MERGEPATH_IN_MERGE_PER_SM=4
  bk loads$round $B/host SORT_MERGEPATH_REVERSE=0
  bk new$round $B/host
  fin
done
for rv in 0 1; do
  SORT_MERGEPATH_REVERSE=$rv timeout 120 ncu --clock-control none --cache-control none -k regex:mergepath_merge_u32 -s 3 -c 2 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
    $B/host --variant mergepath --type u32 --n 2^24 --repeat 1 --require-gpu > $L/ncu_rev$rv.txt 2>&1
  echo "ncu reverse=$rv:"; grep -h "gpu__time\|dram__bytes\|hit_rate" $L/ncu_rev$rv.txt
done
fin
timeout 200 $B/tests/gpu_mergepath-test > $L/gpu_mergepath.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/gpu_mergepath.txt)"
timeout 100 $B/tests/gpu_records-test > $L/gpu_records.txt 2>&1; echo "gpu_records rc=$? $(grep -h '^test result' $L/gpu_records.txt)"
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge\|d2d" $L/cub.txt
date >> $L/times.txt; fin
