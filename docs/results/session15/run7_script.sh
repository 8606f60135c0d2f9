#!/bin/bash
# Session 15 run 7: the committed build (run 6's B with the i32 / f32 value merges at 4
# blocks per SM too): pairs benchmarks against run 3's build (prev), then the checks of run 4. The GPU suite (12 binaries),
# gpu_mergepath with both flags forced at every size, gpu_mergepath --ignored (2^28 and
# 2^31 + 1000), compute-sanitizer memcheck / racecheck / synccheck with both flags forced.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
rm -rf $B/*; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
P=/tmp/prev; rm -rf $P; mkdir -p $P; (cd $P && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
date > $L/times.txt
for round in 1 2; do
  $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/pairs$round.txt 2>&1
  $B/host bench-pairs --variant mergepath --type f32,i32 --values u32 --n 2^24 --repeat 10 > $L/pairs_fi$round.txt 2>&1
  $P/host bench-pairs --variant mergepath --type f32,i32 --values u32 --n 2^24 --repeat 10 > $L/prev_pairs_fi$round.txt 2>&1
  echo "pairs: $(grep -h '^u32' $L/pairs$round.txt | awk '{printf "%s ", $6}') f32,i32: $(grep -h '^[fi]32' $L/pairs_fi$round.txt | awk '{printf "%s ", $6}') prev f32,i32: $(grep -h '^[fi]32' $L/prev_pairs_fi$round.txt | awk '{printf "%s ", $6}')"
done
fin
timeout 300 $B/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "PASS\|FAIL\|gpu-tests" $L/tests.txt
fin
SORT_MERGEPATH_REVERSE=1 SORT_MERGEPATH_STREAM=1 timeout 100 $B/tests/gpu_mergepath-test > $L/gpu_mergepath_forced.txt 2>&1; echo "gpu_mergepath forced rc=$? $(grep -h '^test result' $L/gpu_mergepath_forced.txt)"
fin
export SORT_MERGEPATH_REVERSE=1 SORT_MERGEPATH_STREAM=1
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 $tool rc=$?"
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type i64 --order desc --n 1000003 --check --repeat 1 --require-gpu > $L/san_i64_$tool.log 2>&1; echo "i64 desc $tool rc=$?"
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 1000003 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "pairs $tool rc=$?"
  fin
done
unset SORT_MERGEPATH_REVERSE SORT_MERGEPATH_STREAM
timeout 200 $B/tests/gpu_mergepath-test --ignored > $L/gpu_mergepath_ignored.txt 2>&1; echo "gpu_mergepath --ignored rc=$? $(grep -h '^test result' $L/gpu_mergepath_ignored.txt)"
date >> $L/times.txt; fin
