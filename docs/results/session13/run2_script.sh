#!/bin/bash
# Session 13 run 2: four-way passes for keys (grid of cuts + two-level block merge),
# with the wide block sorts. Correctness first (gpu_mergepath with four-way on, also
# with every size forced wide; gpu_records), then keys at four-way off/on x widths,
# ncu per kernel at 2^24, sanitizers on the new kernels.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
timeout 120 $B/tests/gpu_mergepath-test > $L/t_mp_default.txt 2>&1; echo "gpu_mergepath default rc=$? $(grep -h '^test result' $L/t_mp_default.txt)"
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 120 $B/tests/gpu_mergepath-test > $L/t_mp_wide.txt 2>&1; echo "gpu_mergepath all-wide rc=$? $(grep -h '^test result' $L/t_mp_wide.txt)"
SORT_MERGEPATH_WIDE=1 timeout 120 $B/tests/gpu_mergepath-test > $L/t_mp_w1.txt 2>&1; echo "gpu_mergepath w1 rc=$? $(grep -h '^test result' $L/t_mp_w1.txt)"
timeout 120 $B/tests/gpu_records-test > $L/t_rec.txt 2>&1; echo "gpu_records rc=$? $(grep -h '^test result' $L/t_rec.txt)"
grep -h -A8 "panicked" $L/t_*.txt | head -30
fin
for r in 1 2; do
  for f in 0 1; do
    for w in 1 2 4; do
      SORT_MERGEPATH_FOUR=$f SORT_MERGEPATH_WIDE=$w $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_f${f}_w${w}_r$r.txt 2>&1
      echo "four $f w$w r$r: $(grep -h '^mergepath ' $L/keys_f${f}_w${w}_r$r.txt | awk '{printf "%s ", $9}')"
    done
  done
  fin
done
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
for w in 1 4; do
  SORT_MERGEPATH_WIDE=$w timeout 60 ncu --metrics $M -k regex:mergepath_ $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^24 --repeat 1 > $L/ncu_f1_w$w.txt 2>&1
  echo "ncu w$w rc=$?"
done
fin
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 $tool rc=$?"
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type f64 --n 1000003 --check --repeat 1 --require-gpu --order desc > $L/san_f64_$tool.log 2>&1; echo "f64 desc $tool rc=$?"
  fin
done
date >> $L/times.txt; fin
