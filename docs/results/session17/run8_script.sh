#!/bin/bash
# Session 17 run 8: samples every 128 elements (was 64; the chunk round tests 4
# candidates a lane in a warp, 16 in a group of 8) against c19 (= 7d7e3c5), alternated
# twice; issue 11's table with CUB in the same call; the GPU suite, gpu_mergepath with
# partition kernels (8 and 32 lanes) at every multi-pass size, --ignored sizes,
# sanitizers on the partition and in-merge searches.
. docs/results/lib.sh
P=/tmp/c19
unpack h.tar.xz /tmp/bundle; unpack c19.tar.xz $P; device_info; cub_start
A=/tmp/bundle/host
date > $L/times.txt
for round in 1 2; do
  for v in c19:$P a:/tmp/bundle; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_$name$round.txt 2>&1
    $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_$name$round.txt 2>&1
    $dir/host bench --require-gpu --variants mergepath --type entity --n 2^24 --repeat 10 > $L/e_$name$round.txt 2>&1
    echo "$name$round u32,u64 x 2^22,23,24,26,28: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}') pairs 2^24,28: $(grep -h '^u32' $L/p_$name$round.txt | awk '{printf "%s ", $6}') entity 2^24: $(grep -h '^mergepath ' $L/e_$name$round.txt | awk '{printf "%s ", $9}')"
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
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 SORT_MERGEPATH_PARTITION_LANES=8 $S --tool $tool $A --variant mergepath --type u64 --n 3000007 --check --repeat 1 --require-gpu > $L/san_l8_$tool.log 2>&1; echo "u64 8-lane partitions $tool rc=$?"
  $S --tool $tool $A --variant mergepath --type u32 --order desc --dist few-unique --n 2000003 --check --repeat 1 --require-gpu > $L/san_inmerge_$tool.log 2>&1; echo "u32 desc few-unique in-merge $tool rc=$?"
  fin
done
date >> $L/times.txt; fin
