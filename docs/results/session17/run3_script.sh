#!/bin/bash
# Session 17 run 3 (an H100, kind nvidia-h100-x1): the build to commit (width-4 block
# sort for 4-byte keys alone from 1.75 waves, warp-local early rounds, partition
# kernels with 32 or 8 lanes per co-rank by the pass's co-rank count). Issue 11's table
# with CUB in the same call; main (b2a205a) against it once at the issue's sizes;
# gpu_mergepath through the 8-lane partition at every multi-pass size; --ignored sizes.
. docs/results/lib.sh
P=/tmp/prev
unpack h.tar.xz /tmp/bundle; unpack prev.tar.xz $P; device_info; cub_start
A=/tmp/bundle/host
date > $L/times.txt
$A bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$A bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$A bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
fin
cub_run; fin
for v in prev:$P a:/tmp/bundle; do
  IFS=: read name dir <<< "$v"
  $dir/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_$name.txt 2>&1
  $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_$name.txt 2>&1
  echo "$name u32,u64 x 2^22,23,24,26,28: $(grep -h '^mergepath ' $L/k_$name.txt | awk '{printf "%s ", $9}') pairs 2^24,28: $(grep -h '^u32' $L/p_$name.txt | awk '{printf "%s ", $6}')"
  fin
done
date >> $L/times.txt
SORT_MERGEPATH_IN_MERGE_PER_SM=0 SORT_MERGEPATH_PARTITION_LANES=8 timeout 200 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp_l8.txt 2>&1; echo "gpu_mergepath 8-lane partitions everywhere rc=$? $(grep -h '^test result' $L/t_mp_l8.txt)"
fin
timeout 200 /tmp/bundle/tests/gpu_mergepath-test --ignored > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath --ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt)"
date >> $L/times.txt; fin
