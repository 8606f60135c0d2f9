#!/bin/bash
# Session 15 run 4: checks of the L2-reuse build. The GPU suite (12 binaries),
# gpu_mergepath with both flags forced at every size, gpu_mergepath --ignored (2^28 and
# 2^31 + 1000), compute-sanitizer memcheck / racecheck / synccheck with both flags forced.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
[ -x $B/host ] || (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
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
