#!/bin/bash
# Session 9 run 1: packed u32 + u32 pair passes (split / alternate / through) on the GPU:
# tests, alternated benchmarks, CUB; the file sort's start-up timeline; sanitizers.
set -u
C=$PWD/carry; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for t in gpu_radix gpu_records gpu_segmented gpu_interop cli gpu_file_sort gpu_multi; do
  timeout 300 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
date >> $L/times.txt; fin
run() { local p=$1; shift; SORT_RADIX_PAIRS=$p $B/host "$@"; }
for p in split alternate through; do run $p bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; done
for r in 1 2; do
  for p in split alternate through; do
    run $p bench-pairs --type u32 --values u32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/pairs_${p}_r$r.txt 2>&1
    run $p bench-pairs --type u32 --n 2^24 --repeat 10 --argsort > $L/argsort_${p}_r$r.txt 2>&1
  done
  fin
done
grep -h "16777216\|268435456" $L/pairs_*_r1.txt | head -12
$B/host bench --require-gpu --variants radix --type u32,u64 --n 2^20,2^24,2^28 --repeat 10 > $L/keys.txt 2>&1
$B/host bench-records --record-size 32 --key-offset 0 --key-type u32 --n 2^24 --repeat 10 > $L/records.txt 2>&1
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1
date >> $L/times.txt; fin
# The file sort's start-up: the driver's own steps, then our trace.
python3 docs/results/session9/driver_init.py > $L/driver_init.txt 2>&1
W=/tmp/fw; mkdir -p $W
$B/host gen -o $W/u32.bin --n 2^28 --type u32 > /dev/null; cat $W/u32.bin > /dev/null
printf '\x04\x03\x02\x01' > $W/k4.bin
for i in 1 2 3; do
  s=$(date +%s%N); SORT_TRACE=1 $B/host sort -i $W/u32.bin -o $W/out$i.bin --type u32 --require-gpu > $L/file_trace$i.txt 2>&1
  e=$(date +%s%N); echo "wall $(( (e - s) / 1000000 )) ms" >> $L/file_trace$i.txt
done
for i in 1 2; do
  s=$(date +%s%N); CUDA_CACHE_DISABLE=1 SORT_TRACE=1 $B/host sort -i $W/k4.bin -o $W/o4.bin --type u32 --require-gpu > $L/k4_trace$i.txt 2>&1
  e=$(date +%s%N); echo "wall $(( (e - s) / 1000000 )) ms" >> $L/k4_trace$i.txt
done
s=$(date +%s%N); $B/host list > /dev/null; e=$(date +%s%N); echo "host list wall $(( (e - s) / 1000000 )) ms" > $L/host_list.txt
rm -rf $W
date >> $L/times.txt; fin
for p in through alternate; do
  for tool in memcheck racecheck synccheck; do
    SORT_RADIX_PAIRS=$p timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san.log 2>&1
    echo "$p $tool pairs rc=$?" >> $L/sanitize.txt; tail -2 $L/san.log >> $L/sanitize.txt
  done
done
SORT_RADIX_PAIRS=through timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host --variant radix --type entity --n 300007 --check --repeat 1 --require-gpu > $L/san.log 2>&1
echo "through memcheck entity rc=$?" >> $L/sanitize.txt; tail -2 $L/san.log >> $L/sanitize.txt
cat $L/sanitize.txt
date >> $L/times.txt; fin
