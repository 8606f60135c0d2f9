#!/bin/bash
# Session 11 run 3: radix histogram with lane-striped shared counters (branch
# radix-hist-lanes, binary hostH) against main (hostM): checks first, then u32 keys,
# u32 + u32 pairs and u64 keys at 2^20 / 2^24 / 2^28, alternated twice; ncu of the
# histogram kernel of each at 2^24 u32; the radix GPU tests of the branch; CUB.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for h in M H; do
  for n in 1000 7681 300007 10000019 16777216; do
    for t in u32 u64 f32 i64; do
      $B/host$h --variant radix --type $t --n $n --check --repeat 1 --require-gpu >> $L/check_$h.txt 2>&1 || echo "host$h $t n=$n FAILED"
    done
    $B/host$h --variant radix --type u32 --n $n --order desc --dist few-unique --check --repeat 1 --require-gpu >> $L/check_$h.txt 2>&1 || echo "host$h desc n=$n FAILED"
  done
  $B/host$h bench-pairs --type u32 --values u32 --n 300007,10000019,16777216 --repeat 1 >> $L/check_$h.txt 2>&1 || echo "host$h pairs FAILED"
  echo "host$h checks done"
done
HOST_BIN=$B/hostH timeout 200 $B/tests/gpu_radix-test > $L/t_gpu_radix.txt 2>&1; echo "rc=$?" >> $L/t_gpu_radix.txt
echo "gpu_radix (H): $(grep -h '^test result' $L/t_gpu_radix.txt | tail -1)"
fin
for r in 1 2; do
  for h in M H; do
    $B/host$h bench --require-gpu --variants radix --type u32,u64 --n 2^20,2^24,2^28 --repeat 10 > $L/keys_${h}_r$r.txt 2>&1
    $B/host$h bench-pairs --type u32 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pairs_${h}_r$r.txt 2>&1
    echo "$h r$r keys: $(grep -h '^radix ' $L/keys_${h}_r$r.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/pairs_${h}_r$r.txt | awk '{printf "%s ", $6}')"
  done
  fin
done
for h in M H; do
  timeout 60 ncu --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum -k regex:radix_hist $B/host$h --variant radix --type u32 --n 16777216 --repeat 1 --require-gpu > $L/ncu_$h.txt 2>&1
  echo "ncu $h: $(grep -h 'gpu__time_duration.sum\|bank_conflicts\|inst_executed' $L/ncu_$h.txt | awk '{printf "%s %s; ", $1, $NF}')"
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/hostH --variant radix --type u64 --n 300007 --check --repeat 1 --require-gpu > $L/san.log 2>&1; echo "racecheck H rc=$?"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/hostH --variant radix --type u32 --n 300007 --check --repeat 1 --require-gpu > $L/san2.log 2>&1; echo "memcheck H rc=$?"
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "radix u32\|radix u64\|pairs\|d2d" $L/cub.txt | grep -v merge
date >> $L/times.txt; fin
