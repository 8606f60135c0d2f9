#!/bin/bash
# Session 16 run 6: 19 keys per thread for 8-byte keys alone (tile 4,864, wide run
# 19,456) against 17 (c16 = commit 59668f2), alternated twice; gpu_mergepath, memcheck.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; rm -rf $B $P; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/c16.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
date > $L/times.txt
for round in 1 2; do
  for v in c16:$P a:$B; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u64 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_${name}$round.txt 2>&1
    echo "$name$round u64 x 2^20,22,23,24,26,28: $(grep -h '^mergepath ' $L/k_${name}$round.txt | awk '{printf "%s ", $9}')"
    fin
  done
done
timeout 150 $B/tests/gpu_mergepath-test > $L/t_mp.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/t_mp.txt)"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host --variant mergepath --type u64 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u64_memcheck.log 2>&1; echo "u64 memcheck rc=$?"
date >> $L/times.txt; fin
