#!/bin/bash
# Session 18 run 1: samples every 128 elements for 4-byte keys, 64 for wider ones, and
# the co-rank's dead fallback removed (`a`), against c19 (7d7e3c5: the same kernels as
# 9e20313 up to the order of two instructions), alternated twice; issue 11's table with
# CUB in the same call; the GPU suite, gpu_mergepath with partition kernels (8 and 32
# lanes) everywhere, --ignored sizes, sanitizers on the partition and in-merge
# searches; ncu detail of the x4 block sorts (u32 keys, u32 + u32 pairs) and of the
# u32 merge, and per-kernel times at 2^28 (u32, pairs).
. docs/results/lib.sh
P=/tmp/c19
unpack h.tar.xz /tmp/bundle; unpack c19.tar.xz $P; device_info; cub_start
A=/tmp/bundle/host
(which nsys ncu; ncu --version | tail -1) > $L/tools.txt 2>&1
date > $L/times.txt
for round in 1 2; do
  for v in c19:$P a:/tmp/bundle; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_$name$round.txt 2>&1
    $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_$name$round.txt 2>&1
    $dir/host bench --require-gpu --variants mergepath --type f32 --n 2^24,2^28 --repeat 10 > $L/f_$name$round.txt 2>&1
    echo "$name$round u32,u64 x 2^22,23,24,26,28: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}') pairs 2^24,28: $(grep -h '^u32' $L/p_$name$round.txt | awk '{printf "%s ", $6}') f32 2^24,28: $(grep -h '^mergepath ' $L/f_$name$round.txt | awk '{printf "%s ", $9}')"
    fin
  done
done
$A bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$A bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$A bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
fin
cub_run; fin
date >> $L/times.txt
timeout 240 /tmp/bundle/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "FAIL\|gpu-tests" $L/tests.txt
fin
for lanes in 8 32; do
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 SORT_MERGEPATH_PARTITION_LANES=$lanes timeout 100 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp_l$lanes.txt 2>&1; echo "gpu_mergepath partitions of $lanes lanes everywhere rc=$? $(grep -h '^test result' $L/t_mp_l$lanes.txt)"
done
fin
timeout 100 /tmp/bundle/tests/gpu_mergepath-test --ignored > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath --ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt)"
fin
S="timeout 60 compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 SORT_MERGEPATH_PARTITION_LANES=8 $S --tool $tool $A --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_l8_$tool.log 2>&1; echo "u32 8-lane partitions $tool rc=$?"
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 SORT_MERGEPATH_PARTITION_LANES=32 $S --tool $tool $A --variant mergepath --type f32 --order desc --n 3000007 --check --repeat 1 --require-gpu > $L/san_l32_$tool.log 2>&1; echo "f32 desc 32-lane partitions $tool rc=$?"
  $S --tool $tool $A --variant mergepath --type i32 --order desc --dist few-unique --n 2000003 --check --repeat 1 --require-gpu > $L/san_inmerge_$tool.log 2>&1; echo "i32 desc few-unique in-merge $tool rc=$?"
  fin
done
date >> $L/times.txt; fin
# Where the x4 block sort's time goes (2^24: 497 blocks of 1,024 threads).
NCU="timeout 120 ncu --set full --import-source no"
$NCU -k regex:mergepath_block_sort_x4_u32 -c 1 $A bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/ncu_bs_x4_u32.txt 2>&1; echo "ncu bs u32 rc=$?"; fin
$NCU -k regex:mergepath_merge_u32 -s 4 -c 1 $A bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/ncu_merge_u32.txt 2>&1; echo "ncu merge u32 rc=$?"; fin
$NCU -k regex:mergepath_block_sort_kv_x4_u32 -c 1 $A bench-pairs --variant mergepath --type u32 --values u32 --n 2^24 --repeat 1 > $L/ncu_bs_kv_x4_u32.txt 2>&1; echo "ncu bs kv rc=$?"; fin
ncu_times u32_28 $A bench --require-gpu --variants mergepath --type u32 --n 2^28 --repeat 1; python3 docs/results/ncu_times.py $L/u32_28_ncu.csv; fin
ncu_times pairs_28 $A bench-pairs --variant mergepath --type u32 --values u32 --n 2^28 --repeat 1; python3 docs/results/ncu_times.py $L/pairs_28_ncu.csv; fin
date >> $L/times.txt; fin
