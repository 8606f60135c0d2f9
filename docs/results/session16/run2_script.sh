#!/bin/bash
# Session 16 run 2: look-ahead co-ranks in the merge (no partition kernel from 8 waves of
# merge blocks up). Checks with look-ahead forced at every multi-pass size (small
# distances, so blocks wait on one another), compute-sanitizer, then benchmarks:
# A = new build (default), B = new build with SORT_MERGEPATH_AHEAD_WAVES=0 (partition
# kernels, the restructured load loop), prev = main at 6ab68a7; alternated twice.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; rm -rf $B $P; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/cur.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
date > $L/times.txt
F="SORT_MERGEPATH_IN_MERGE_PER_SM=0 SORT_MERGEPATH_AHEAD_WAVES=1"
env $F SORT_MERGEPATH_AHEAD_DISTANCE=2 timeout 150 $B/tests/gpu_mergepath-test > $L/t_mp_d2.txt 2>&1; echo "gpu_mergepath ahead d2 rc=$? $(grep -h '^test result' $L/t_mp_d2.txt)"
env $F SORT_MERGEPATH_AHEAD_DISTANCE=3 SORT_MERGEPATH_REVERSE=1 SORT_MERGEPATH_STREAM=1 timeout 150 $B/tests/gpu_mergepath-test > $L/t_mp_d3.txt 2>&1; echo "gpu_mergepath ahead d3 flags rc=$? $(grep -h '^test result' $L/t_mp_d3.txt)"
env $F SORT_MERGEPATH_AHEAD_DISTANCE=5 timeout 150 $B/tests/gpu_records-test > $L/t_rec_d5.txt 2>&1; echo "gpu_records ahead d5 rc=$? $(grep -h '^test result' $L/t_rec_d5.txt)"
fin
for tool in memcheck racecheck synccheck; do
  env $F SORT_MERGEPATH_AHEAD_DISTANCE=3 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 $tool rc=$?"
  env $F SORT_MERGEPATH_AHEAD_DISTANCE=2 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 1000003 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "pairs $tool rc=$?"
  fin
done
K="--n 2^24,2^26,2^28 --repeat 10"
for round in 1 2; do
  for v in prev:$P:1 a:$B:8 b:$B:0; do
    IFS=: read name dir waves <<< "$v"
    SORT_MERGEPATH_AHEAD_WAVES=$waves $dir/host bench --require-gpu --variants mergepath --type u32,u64 $K > $L/k_${name}$round.txt 2>&1
    SORT_MERGEPATH_AHEAD_WAVES=$waves $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_${name}$round.txt 2>&1
    echo "$name$round keys u32,u64 x 2^24,26,28: $(grep -h '^mergepath ' $L/k_${name}$round.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/p_${name}$round.txt | awk '{printf "%s ", $6}')"
    fin
  done
done
SORT_MERGEPATH_AHEAD_WAVES=1 $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24 --repeat 10 > $L/k_w1.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24 --repeat 10 > $L/k_w8.txt 2>&1
echo "waves 1 / 8 at 2^22..24: $(grep -h '^mergepath ' $L/k_w1.txt | awk '{printf "%s ", $9}') / $(grep -h '^mergepath ' $L/k_w8.txt | awk '{printf "%s ", $9}')"
date >> $L/times.txt; fin
