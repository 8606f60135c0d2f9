#!/bin/bash
# Session 13 run 1: wide block sorts (2 or 4 merge tiles per block, log2(w) global
# passes fewer). Correctness (gpu_mergepath + gpu_records with the default width rule
# and with every size forced wide), then mergepath keys/pairs at widths 1/2/4,
# alternated, ncu of the block sorts at 2^24, CUB in the same call.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
timeout 120 $B/tests/gpu_mergepath-test > $L/t_mp_default.txt 2>&1; echo "gpu_mergepath default rc=$? $(grep -h '^test result' $L/t_mp_default.txt)"
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 120 $B/tests/gpu_mergepath-test > $L/t_mp_wide.txt 2>&1; echo "gpu_mergepath all-wide rc=$? $(grep -h '^test result' $L/t_mp_wide.txt)"
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 SORT_MERGEPATH_WIDE=2 timeout 120 $B/tests/gpu_mergepath-test > $L/t_mp_wide2.txt 2>&1; echo "gpu_mergepath all-x2 rc=$? $(grep -h '^test result' $L/t_mp_wide2.txt)"
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 120 $B/tests/gpu_records-test > $L/t_rec_wide.txt 2>&1; echo "gpu_records all-wide rc=$? $(grep -h '^test result' $L/t_rec_wide.txt)"
grep -h "FAIL\|panicked" $L/t_*.txt | head -20
fin
export SORT_MERGEPATH_WIDE_MIN_PER_SM=0
for r in 1 2; do
  for w in 1 2 4; do
    SORT_MERGEPATH_WIDE=$w $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_w${w}_r$r.txt 2>&1
    SORT_MERGEPATH_WIDE=$w $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/pairs_w${w}_r$r.txt 2>&1
    echo "w$w r$r: $(grep -h '^mergepath ' $L/keys_w${w}_r$r.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/pairs_w${w}_r$r.txt | awk '{printf "%s ", $6}')"
  done
  fin
done
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge\|d2d" $L/cub.txt
fin
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
for w in 1 2 4; do
  SORT_MERGEPATH_WIDE=$w timeout 60 ncu --metrics $M -k regex:mergepath_ $B/host bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/ncu_w$w.txt 2>&1
  echo "ncu w$w rc=$?"
done
fin
SORT_MERGEPATH_WIDE=4 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host --variant mergepath --type u64 --n 3000007 --check --repeat 1 --require-gpu > $L/san_memcheck.log 2>&1; echo "memcheck rc=$?"
SORT_MERGEPATH_WIDE=4 timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_racecheck.log 2>&1; echo "racecheck rc=$?"
date >> $L/times.txt; fin
