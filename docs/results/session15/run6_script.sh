#!/bin/bash
# Session 15 run 6: the build to commit (A: L2 reuse, pairs' wide block sorts by slot,
# in-merge threshold 8 for 4-byte keys alone). Issue 11's table with CUB in the same
# call; pairs against run 3's build (prev) and B (A with the u32 + u32 merge at 4
# blocks per SM), alternated twice.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
$B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "keys: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
fin
B2=/tmp/b; mkdir -p $B2; (cd $B2 && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack b failed"; exit 1; }
for round in 1 2; do
  for v in prev:$P a:$B b:$B2; do
    name=${v%%:*}; h=${v#*:}/host
    $h bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^24,2^28 --repeat 10 > $L/ab_${name}$round.txt 2>&1
    echo "$name$round pairs: $(grep -h '^u32' $L/ab_${name}$round.txt | awk '{printf "%s ", $6}')"
  done
done
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge\|d2d" $L/cub.txt
fin
$B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^24,2^28 --repeat 10 > $L/mp_keys_b.txt 2>&1
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/mp_pairs_b.txt 2>&1
echo "again: $(grep -h '^mergepath ' $L/mp_keys_b.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs_b.txt | awk '{printf "%s ", $6}')"
date >> $L/times.txt; fin
