#!/bin/bash
# Session 15 run 2: mergepath pass flags (reverse, streaming loads) as knobs of one build.
# prev = main 4dd088f's host (in-merge threshold 4 as on main); F0 = new build, passes
# forward, plain loads (the code of prev); R0 = reversed passes, plain loads; R1 =
# reversed, streaming loads (run 1's "new"). Alternated twice. gpu_mergepath with the
# default and with SORT_MERGEPATH_STREAM=0.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/new.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
date > $L/times.txt
bk() { # name host [env...]
  local name=$1 h=$2; shift 2
  env "$@" $h bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24,2^25,2^26,2^28 --repeat 10 > $L/${name}_keys.txt 2>&1
  env "$@" $h bench-pairs --variant mergepath --type u32 --values u32 --n 2^22,2^23,2^24,2^25,2^28 --repeat 10 > $L/${name}_pairs.txt 2>&1
  echo "$name: $(grep -h '^mergepath ' $L/${name}_keys.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/${name}_pairs.txt | awk '{printf "%s ", $6}')"; }
for round in 1 2; do
  bk prev$round $P/host SORT_MERGEPATH_IN_MERGE_PER_SM=4
  bk F0_$round $B/host SORT_MERGEPATH_REVERSE=0 SORT_MERGEPATH_STREAM=0
  bk R0_$round $B/host SORT_MERGEPATH_REVERSE=1 SORT_MERGEPATH_STREAM=0
  bk R1_$round $B/host SORT_MERGEPATH_REVERSE=1 SORT_MERGEPATH_STREAM=1
  fin
done
timeout 200 $B/tests/gpu_mergepath-test > $L/gpu_mergepath.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/gpu_mergepath.txt)"
SORT_MERGEPATH_STREAM=0 timeout 200 $B/tests/gpu_mergepath-test > $L/gpu_mergepath_s0.txt 2>&1; echo "gpu_mergepath (stream 0) rc=$? $(grep -h '^test result' $L/gpu_mergepath_s0.txt)"
fin
date >> $L/times.txt; fin
