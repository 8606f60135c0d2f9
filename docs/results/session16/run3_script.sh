#!/bin/bash
# Session 16 run 3: guided first round of the co-rank searches (partition kernels and
# in-merge co-ranks). Checks (gpu_mergepath with and without partition kernels at every
# size, gpu_records, compute-sanitizer), then A = new build against prev = main at
# 6ab68a7, alternated twice; other distributions; ncu partition times.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; rm -rf $B $P; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/cur.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
date > $L/times.txt
timeout 150 $B/tests/gpu_mergepath-test > $L/t_mp.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/t_mp.txt)"
SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 150 $B/tests/gpu_mergepath-test > $L/t_mp_part.txt 2>&1; echo "gpu_mergepath partition kernels rc=$? $(grep -h '^test result' $L/t_mp_part.txt)"
timeout 150 $B/tests/gpu_records-test > $L/t_rec.txt 2>&1; echo "gpu_records rc=$? $(grep -h '^test result' $L/t_rec.txt)"
fin
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32p_$tool.log 2>&1; echo "u32 partition $tool rc=$?"
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type i64 --order desc --n 1000003 --check --repeat 1 --require-gpu > $L/san_i64_$tool.log 2>&1; echo "i64 desc in-merge $tool rc=$?"
  fin
done
for round in 1 2; do
  for v in prev:$P a:$B; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_${name}$round.txt 2>&1
    $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^24,2^28 --repeat 10 > $L/p_${name}$round.txt 2>&1
    echo "$name$round u32,u64 x 2^20,22,23,24,26,28: $(grep -h '^mergepath ' $L/k_${name}$round.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/p_${name}$round.txt | awk '{printf "%s ", $6}')"
    fin
  done
done
for v in prev:$P a:$B; do
  IFS=: read name dir <<< "$v"
  $dir/host bench --require-gpu --variants mergepath --type u32 --dist sorted,reverse,few-unique,organ-pipe --n 2^24 --repeat 10 > $L/d_${name}.txt 2>&1
  echo "$name dists sorted,reverse,few,organ 2^24: $(grep -h '^mergepath ' $L/d_${name}.txt | awk '{printf "%s ", $9}')"
done
fin
for nn in 28 24; do
  ncu --metrics gpu__time_duration.sum --csv --kernel-name regex:mergepath $B/host bench --require-gpu --variants mergepath --type u32 --n 2^$nn --repeat 1 > $L/u32_${nn}_ncu.csv 2>&1
done
ncu --metrics gpu__time_duration.sum --csv --kernel-name regex:mergepath $B/host bench --require-gpu --variants mergepath --type u64 --n 2^28 --repeat 1 > $L/u64_28_ncu.csv 2>&1
date >> $L/times.txt; fin
