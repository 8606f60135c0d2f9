#!/bin/bash
# Session 10 run 8: the committed build after the block ranking took its bin count as a
# parameter (BINS = the radix digit count, 256): the GPU tests of everything built on
# the radix kernels (radix, records, segmented, top-k) and the file sort, the 2^28
# radix test, and memcheck / racecheck / synccheck on split and packed radix sorts.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
for t in gpu_radix gpu_records gpu_segmented gpu_topk gpu_file_sort cli; do
  timeout 150 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
timeout 120 $B/tests/gpu_radix-test --ignored radix_2p28 > $L/t_ignored_2p28.txt 2>&1; echo "2p28 rc=$? $(grep -h '^test result' $L/t_ignored_2p28.txt | tail -1)"
fin
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant radix --type u32 --n 300007 --check --repeat 1 --require-gpu > $L/san.log 2>&1
  echo "split keys $tool rc=$?" | tee -a $L/sanitize.txt
  SORT_RADIX_PACKED_MIN=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san.log 2>&1
  echo "packed pairs $tool rc=$?" | tee -a $L/sanitize.txt
done
$B/host bench --require-gpu --variants radix --type u32 --n 2^24 --repeat 10 2>&1 | grep "radix  *u32" | tee $L/keys.txt
$B/host bench-pairs --type u32 --values u32 --n 2^24 --repeat 10 2>&1 | grep "^u32" | tee $L/pairs.txt
date >> $L/times.txt; fin
