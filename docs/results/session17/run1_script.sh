#!/bin/bash
# Session 17 run 1: block-sort rounds within a warp ordered by warp barriers (whole
# tiles; dense rounds shifted by the warp index), and a width-4 block sort for u32
# (SORT_MERGEPATH_WIDTH=4, build a only). prev = main at b2a205a. Alternated twice;
# then the whole GPU suite, gpu_mergepath --ignored, and the sanitizers on the changed
# block sorts (x2 u32, x4 u64 / i64 desc few-unique, x4 u32 + u32 pairs, x4 u32).
. docs/results/lib.sh
P=/tmp/prev
unpack h.tar.xz /tmp/bundle; unpack prev.tar.xz $P; device_info
date > $L/times.txt
for round in 1 2; do
  for v in prev:$P a:/tmp/bundle; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^24,2^26,2^28 --repeat 10 > $L/k_${name}$round.txt 2>&1
    $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_${name}$round.txt 2>&1
    echo "$name$round u32,u64 x 2^22,24,26,28: $(grep -h '^mergepath ' $L/k_${name}$round.txt | awk '{printf "%s ", $9}') pairs 2^24,28: $(grep -h '^u32' $L/p_${name}$round.txt | awk '{printf "%s ", $6}')"
    fin
  done
  SORT_MERGEPATH_WIDTH=4 $HOST_BIN bench --require-gpu --variants mergepath --type u32 --n 2^22,2^24,2^26,2^28 --repeat 10 > $L/k_a4$round.txt 2>&1
  echo "a4$round u32 x 2^22,24,26,28: $(grep -h '^mergepath ' $L/k_a4$round.txt | awk '{printf "%s ", $9}')"
  fin
done
date >> $L/times.txt
timeout 300 /tmp/bundle/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "FAIL\|gpu-tests" $L/tests.txt
fin
SORT_MERGEPATH_WIDTH=4 timeout 150 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp_w4.txt 2>&1; echo "gpu_mergepath width 4 rc=$? $(grep -h '^test result' $L/t_mp_w4.txt)"
fin
S="timeout 90 compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  $S --tool $tool $HOST_BIN --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 x2 $tool rc=$?"
  $S --tool $tool $HOST_BIN --variant mergepath --type u64 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u64_$tool.log 2>&1; echo "u64 x4 $tool rc=$?"
  $S --tool $tool $HOST_BIN --variant mergepath --type i64 --order desc --dist few-unique --n 3000007 --check --repeat 1 --require-gpu > $L/san_i64_$tool.log 2>&1; echo "i64 desc few-unique x4 $tool rc=$?"
  $S --tool $tool $HOST_BIN bench-pairs --variant mergepath --type u32 --values u32 --n 3000017 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "u32+u32 pairs x4 $tool rc=$?"
  SORT_MERGEPATH_WIDTH=4 $S --tool $tool $HOST_BIN --variant mergepath --type u32 --n 5000011 --check --repeat 1 --require-gpu > $L/san_u32w4_$tool.log 2>&1; echo "u32 x4 $tool rc=$?"
  fin
done
date >> $L/times.txt
timeout 240 /tmp/bundle/tests/gpu_mergepath-test --ignored > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath --ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt)"
date >> $L/times.txt; fin
