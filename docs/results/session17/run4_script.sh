#!/bin/bash
# Session 17 run 4: the build to commit (as run 3): the whole GPU suite, and
# compute-sanitizer on the 8-lane partition (u32, partition kernels forced) and the
# width-4 block sort of f32 (descending) and i32.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; device_info
A=/tmp/bundle/host
date > $L/times.txt
timeout 300 /tmp/bundle/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "FAIL\|gpu-tests" $L/tests.txt
fin
S="timeout 100 compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 SORT_MERGEPATH_PARTITION_LANES=8 $S --tool $tool $A --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_l8_$tool.log 2>&1; echo "u32 8-lane partitions $tool rc=$?"
  $S --tool $tool $A --variant mergepath --type f32 --order desc --n 8000009 --check --repeat 1 --require-gpu > $L/san_f32w4_$tool.log 2>&1; echo "f32 desc x4 $tool rc=$?"
  fin
done
$S --tool memcheck $A --variant mergepath --type i32 --dist few-unique --n 8000009 --check --repeat 1 --require-gpu > $L/san_i32w4_memcheck.log 2>&1; echo "i32 few-unique x4 memcheck rc=$?"
date >> $L/times.txt; fin
