#!/bin/bash
# Session 15 run 8: the committed build (run 7's with the f32 value merge back at 3
# blocks per SM): pairs against run 3's build (prev) alternated twice, gpu_mergepath,
# gpu_records, gpu_multi, memcheck on f32 + u32 pairs.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B/* $P/*
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
date > $L/times.txt
for round in 1 2; do
  for v in new:$B prev:$P; do
    name=${v%%:*}; h=${v#*:}/host
    $h bench-pairs --variant mergepath --type u32,i32,f32 --values u32 --n 2^24 --repeat 10 > $L/${name}_pairs$round.txt 2>&1
    $h bench-pairs --variant mergepath --type u32 --values u32 --n 2^28 --repeat 10 >> $L/${name}_pairs$round.txt 2>&1
    echo "$name$round u32,i32,f32 2^24, u32 2^28: $(grep -h '^[uif]32' $L/${name}_pairs$round.txt | awk '{printf "%s ", $6}')"
  done
done
fin
timeout 150 $B/tests/gpu_mergepath-test > $L/gpu_mergepath.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/gpu_mergepath.txt)"
timeout 100 $B/tests/gpu_records-test > $L/gpu_records.txt 2>&1; echo "gpu_records rc=$? $(grep -h '^test result' $L/gpu_records.txt)"
timeout 100 $B/tests/gpu_multi-test > $L/gpu_multi.txt 2>&1; echo "gpu_multi rc=$? $(grep -h '^test result' $L/gpu_multi.txt)"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host bench-pairs --variant mergepath --type f32,i32 --values u32 --n 777777 --repeat 1 > $L/san_p_memcheck.log 2>&1; echo "f32,i32 + u32 pairs memcheck rc=$?"
date >> $L/times.txt; fin
