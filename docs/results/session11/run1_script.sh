#!/bin/bash
# Session 11 run 1: mergepath's chained launch (block sort + the first passes in one
# launch, chunk by chunk in ticket order; issue 11). GPU tests at the default (8
# levels) and at 3 levels in groups of 3 chunks; sanitizers; bench of chain levels
# 0 (separate launches, the previous behaviour) / 6 / 8 / 10, groups 1 / 2; CUB.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
timeout 200 $B/tests/gpu_mergepath-test > $L/t_gpu_mergepath.txt 2>&1; echo "rc=$?" >> $L/t_gpu_mergepath.txt
echo "gpu_mergepath: $(grep -h '^test result' $L/t_gpu_mergepath.txt | tail -1)"
SORT_MERGEPATH_CHAIN_LEVELS=3 SORT_MERGEPATH_CHAIN_GROUP=3 timeout 200 $B/tests/gpu_mergepath-test > $L/t_gpu_mergepath_l3g3.txt 2>&1; echo "rc=$?" >> $L/t_gpu_mergepath_l3g3.txt
echo "gpu_mergepath l3g3: $(grep -h '^test result' $L/t_gpu_mergepath_l3g3.txt | tail -1)"
timeout 150 $B/tests/gpu_records-test > $L/t_gpu_records.txt 2>&1; echo "rc=$?" >> $L/t_gpu_records.txt
echo "gpu_records: $(grep -h '^test result' $L/t_gpu_records.txt | tail -1)"
fin
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 300007 --check --repeat 1 --require-gpu > $L/san.log 2>&1
  echo "keys $tool rc=$?" | tee -a $L/sanitize.txt
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --variant mergepath --type u64 --values u32 --n 100003 --repeat 1 > $L/san2.log 2>&1
  echo "pairs $tool rc=$?" | tee -a $L/sanitize.txt
done
fin
for r in 1 2; do
  for cfg in 0:1 8:1 6:1 10:1 8:2; do
    lv=${cfg%:*}; g=${cfg#*:}
    SORT_MERGEPATH_CHAIN_LEVELS=$lv SORT_MERGEPATH_CHAIN_GROUP=$g $B/host bench --require-gpu --variants mergepath --type u32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_l${lv}g${g}_r$r.txt 2>&1
    echo "l$lv g$g r$r u32: $(grep -h '^mergepath  *u32' $L/keys_l${lv}g${g}_r$r.txt | awk '{printf "%s ", $9}')"
  done
  fin
done
for lv in 0 8; do
  SORT_MERGEPATH_CHAIN_LEVELS=$lv $B/host bench --require-gpu --variants mergepath --type u64,f32 --n 2^20,2^24,2^28 --repeat 10 > $L/u64f32_l$lv.txt 2>&1
  echo "l$lv u64/f32: $(grep -h '^mergepath ' $L/u64f32_l$lv.txt | awk '{printf "%s ", $9}')"
  SORT_MERGEPATH_CHAIN_LEVELS=$lv $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pairs_l$lv.txt 2>&1
  echo "l$lv pairs: $(grep -h '^u32' $L/pairs_l$lv.txt | awk '{printf "%s ", $6}')"
  SORT_MERGEPATH_CHAIN_LEVELS=$lv $B/host bench --require-gpu --variants mergepath --type entity --n 2^20,2^24 --repeat 10 > $L/entity_l$lv.txt 2>&1
  echo "l$lv entity: $(grep -h '^mergepath ' $L/entity_l$lv.txt | awk '{printf "%s ", $9}')"
done
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep -i "merge\|d2d" $L/cub.txt
timeout 100 $B/tests/gpu_mergepath-test --ignored > $L/t_ignored.txt 2>&1; echo "ignored rc=$? $(grep -h '^test result' $L/t_ignored.txt | tail -1)"
date >> $L/times.txt; fin
