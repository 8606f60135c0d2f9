#!/bin/bash
# Session 13 run 5 (branch experiment/four-way-cuts): merge4 with per-piece load loops,
# count-bounded store loop, level-1 units packed (busy warps first), shift-based block
# location. Correctness, four-way off/on alternated, ncu per kernel at 2^24.
set -u
C=$PWD/carry; B=/tmp/bundle4; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h4.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
timeout 120 $B/tests/gpu_mergepath-test > $L/t_mp.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/t_mp.txt)"
for r in 1 2; do
  for f in 0 1; do
    SORT_MERGEPATH_FOUR=$f $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_f${f}_r$r.txt 2>&1
    echo "four $f r$r: $(grep -h '^mergepath ' $L/keys_f${f}_r$r.txt | awk '{printf "%s ", $9}')"
  done
done
fin
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
timeout 60 ncu --metrics $M -k regex:mergepath_ $B/host bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/ncu_f1.txt 2>&1
echo "ncu rc=$?"
grep -A8 "mergepath_merge4_u32.*Context\|mergepath_grid4_u32.*Context" $L/ncu_f1.txt | grep "duration\|inst_exec\|throughput" | head -8
fin
