#!/bin/bash
# Session 19 run 8 (warm machine of run 7, whose /tmp it reuses): on main (baf5376),
# gpu_mergepath and gpu_records with the widest block sorts forced, --ignored sizes
# (2^28, 2^31 + 1000); compute-sanitizer on the block sorts (x8 cluster, x4 u64, kv x4,
# records), merges and cluster round.
. docs/results/lib.sh
[ -x /tmp/bundle/host ] || unpack h.tar.xz /tmp/bundle
device_info
A=/tmp/bundle/host
date > $L/times.txt
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 100 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp_forced.txt 2>&1; echo "gpu_mergepath widest forced rc=$? $(grep -h '^test result' $L/t_mp_forced.txt)"
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 100 /tmp/bundle/tests/gpu_records-test > $L/t_rec_forced.txt 2>&1; echo "gpu_records widest forced rc=$? $(grep -h '^test result' $L/t_rec_forced.txt)"
timeout 150 /tmp/bundle/tests/gpu_mergepath-test --ignored > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath --ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt)"
fin
S="timeout 60 compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type i32 --order desc --n 1000003 --check --repeat 1 --require-gpu > $L/san_x8_i32_$tool.log 2>&1; echo "x8 i32 desc 1000003 $tool rc=$?"
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type u64 --order desc --n 777777 --check --repeat 1 --require-gpu > $L/san_x4_u64_$tool.log 2>&1; echo "x4 u64 desc 777777 $tool rc=$?"
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A bench-pairs --variant mergepath --type u32 --values u32 --n 3000017 --repeat 1 > $L/san_kv_$tool.log 2>&1; echo "kv x4 u32+u32 3000017 $tool rc=$?"
  $S --tool $tool $A --variant mergepath --type entity --n 300007 --check --repeat 1 --require-gpu > $L/san_entity_$tool.log 2>&1; echo "entity 300007 $tool rc=$?"
  fin
done
date >> $L/times.txt; fin
