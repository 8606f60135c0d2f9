#!/bin/bash
# Session 16 run 5: the guided round with an inner window of two deviations and an outer
# one of four (approximate square root, no table) and the partition kernels at six
# blocks per SM. A = this build against c16 = run 4's build (commit 59668f2), alternated
# twice; issue 11's table with CUB in the same call; the GPU suite, gpu_mergepath with
# partition kernels at every size, sanitizers on the partition path; partition times.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; rm -rf $B $P; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/c16.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for round in 1 2; do
  for v in c16:$P a:$B; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_${name}$round.txt 2>&1
    $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^26,2^28 --repeat 10 > $L/p_${name}$round.txt 2>&1
    echo "$name$round u32,u64 x 2^22,23,24,26,28: $(grep -h '^mergepath ' $L/k_${name}$round.txt | awk '{printf "%s ", $9}') pairs 2^24,26,28: $(grep -h '^u32' $L/p_${name}$round.txt | awk '{printf "%s ", $6}')"
    fin
  done
done
$B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge\|d2d" $L/cub.txt
fin
$B/host bench --require-gpu --variants mergepath --type u32 --dist sorted,reverse,few-unique --n 2^24,2^26 --repeat 10 > $L/d_a.txt 2>&1
$P/host bench --require-gpu --variants mergepath --type u32 --dist sorted,reverse,few-unique --n 2^24,2^26 --repeat 10 > $L/d_c16.txt 2>&1
echo "dists sorted,reverse,few x 2^24,26: a $(grep -h '^mergepath ' $L/d_a.txt | awk '{printf "%s ", $9}') c16 $(grep -h '^mergepath ' $L/d_c16.txt | awk '{printf "%s ", $9}')"
timeout 300 $B/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "FAIL\|gpu-tests" $L/tests.txt
SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 150 $B/tests/gpu_mergepath-test > $L/t_mp_part.txt 2>&1; echo "gpu_mergepath partition kernels rc=$? $(grep -h '^test result' $L/t_mp_part.txt)"
fin
export SORT_MERGEPATH_IN_MERGE_PER_SM=0
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 $tool rc=$?"
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type f64 --order desc --dist few-unique --n 1000003 --check --repeat 1 --require-gpu > $L/san_f64_$tool.log 2>&1; echo "f64 desc few-unique $tool rc=$?"
  fin
done
unset SORT_MERGEPATH_IN_MERGE_PER_SM
for nn in 24 28; do
  ncu --metrics gpu__time_duration.sum --csv --kernel-name regex:mergepath_partition $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^$nn --repeat 1 > $L/part_${nn}_ncu.csv 2>&1
done
date >> $L/times.txt; fin
