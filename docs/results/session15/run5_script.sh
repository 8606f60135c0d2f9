#!/bin/bash
# Session 15 run 5: 4-byte keys with values sorted in registers as (key << 32 | slot)
# words by the Batcher network (values gathered by slot), and the in-merge co-rank
# threshold of 4-byte keys alone at 8 tiles per SM. prev = run 3's build (72308f8);
# alternated twice. gpu_mergepath, gpu_records, gpu_multi; sanitizers on pairs.
set -u
C=$PWD/carry; B=/tmp/bundle; P=/tmp/prev; L=$OUT/logs; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/new.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
date > $L/times.txt
bk() { # name host
  local name=$1 h=$2
  $h bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/${name}_pairs.txt 2>&1
  $h bench-pairs --variant mergepath --type f32,u64 --values u32 --n 2^24 --repeat 10 > $L/${name}_pairs2.txt 2>&1
  $h bench-pairs --variant mergepath --type u32 --values u64 --n 2^24 --repeat 10 >> $L/${name}_pairs2.txt 2>&1
  $h bench --require-gpu --variants mergepath --type u32 --n 2^22,6000000,2^23,11863283,2^24 --repeat 10 > $L/${name}_keys.txt 2>&1
  echo "$name: pairs $(grep -h '^u32' $L/${name}_pairs.txt | awk '{printf "%s ", $6}') f32,u64 / u32+u64: $(grep -h '^[fu][36][24] ' $L/${name}_pairs2.txt | awk '{printf "%s ", $6}') u32 keys: $(grep -h '^mergepath ' $L/${name}_keys.txt | awk '{printf "%s ", $9}')"; }
for round in 1 2; do
  bk prev$round $P/host
  bk new$round $B/host
  fin
done
timeout 150 $B/tests/gpu_mergepath-test > $L/gpu_mergepath.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/gpu_mergepath.txt)"
timeout 100 $B/tests/gpu_records-test > $L/gpu_records.txt 2>&1; echo "gpu_records rc=$? $(grep -h '^test result' $L/gpu_records.txt)"
timeout 100 $B/tests/gpu_multi-test > $L/gpu_multi.txt 2>&1; echo "gpu_multi rc=$? $(grep -h '^test result' $L/gpu_multi.txt)"
fin
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 1000003 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "u32+u32 pairs $tool rc=$?"
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --variant mergepath --type f32 --values u64 --n 777777 --repeat 1 > $L/san_p64_$tool.log 2>&1; echo "f32+u64 pairs $tool rc=$?"
  fin
done
date >> $L/times.txt; fin
