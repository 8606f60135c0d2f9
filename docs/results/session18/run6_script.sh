#!/bin/bash
# Session 18 run 6: the committed build (`a`, be03b24: clusters of two blocks
# exchanging only what each lacks) against g (b3ee22d) and s18a (run 1's build: width
# 4), alternated twice; issue 11's table with CUB in the same call; the GPU suite,
# gpu_mergepath with the widest block sorts forced at every size, --ignored sizes
# (2^28, 2^31 + 1000), sanitizers on the cluster sort.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; unpack s18a.tar.xz /tmp/s18a; unpack g.tar.xz /tmp/g; device_info; cub_start
A=/tmp/bundle/host
date > $L/times.txt
for round in 1 2; do
  for v in s18a:/tmp/s18a g:/tmp/g a:/tmp/bundle; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,f32 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_$name$round.txt 2>&1
    $dir/host bench --require-gpu --variants mergepath --type i32,u64 --n 2^24,2^28 --repeat 10 > $L/j_$name$round.txt 2>&1
    echo "$name$round u32,f32 x 2^22,23,24,26,28: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}') i32,u64 2^24,28: $(grep -h '^mergepath ' $L/j_$name$round.txt | awk '{printf "%s ", $9}')"
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
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 100 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp_forced.txt 2>&1; echo "gpu_mergepath widest forced rc=$? $(grep -h '^test result' $L/t_mp_forced.txt)"
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 100 /tmp/bundle/tests/gpu_records-test > $L/t_rec_forced.txt 2>&1; echo "gpu_records widest forced rc=$? $(grep -h '^test result' $L/t_rec_forced.txt)"
timeout 150 /tmp/bundle/tests/gpu_mergepath-test --ignored > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath --ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt)"
fin
S="timeout 90 compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type i32 --order desc --n 1000003 --check --repeat 1 --require-gpu > $L/san_i32_$tool.log 2>&1; echo "x8 i32 desc 1000003 $tool rc=$?"
  fin
done
date >> $L/times.txt
ncu_times u32_28 $A bench --require-gpu --variants mergepath --type u32 --n 2^28 --repeat 1; python3 docs/results/ncu_times.py $L/u32_28_ncu.csv | grep -v "^=="; fin
date >> $L/times.txt; fin
