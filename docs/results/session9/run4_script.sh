#!/bin/bash
# Session 9 run 4: the committed build (packed pairs, file staging, merge into the file):
# sanitizers on radix (packed forced on small inputs too), the ignored large and
# out-of-memory radix tests (each alone), then every GPU test binary.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
timeout 200 $B/sanitize.sh $L/sanitize radix > $L/sanitize_radix.txt 2>&1; tail -2 $L/sanitize_radix.txt
for tool in memcheck racecheck synccheck initcheck; do
  SORT_RADIX_PACKED_MIN=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san.log 2>&1
  echo "packed $tool pairs 300007 rc=$?" | tee -a $L/sanitize_packed.txt; tail -1 $L/san.log >> $L/sanitize_packed.txt
done
SORT_RADIX_PACKED_MIN=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host --variant radix --type entity --n 300007 --order desc --check --repeat 1 --require-gpu > $L/san.log 2>&1
echo "packed memcheck entity 300007 rc=$?" | tee -a $L/sanitize_packed.txt; tail -1 $L/san.log >> $L/sanitize_packed.txt
SORT_RADIX_PAIRS=alternate timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san.log 2>&1
echo "alternate memcheck pairs 300007 rc=$?" | tee -a $L/sanitize_packed.txt; tail -1 $L/san.log >> $L/sanitize_packed.txt
date >> $L/times.txt; fin
for t in radix_2p28 radix_beyond_2p31 radix_packed_pairs_fall_back radix_out_of_memory; do
  timeout 120 $B/tests/gpu_radix-test --ignored $t > $L/t_ignored_$t.txt 2>&1; echo "rc=$?" >> $L/t_ignored_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_ignored_$t.txt | tail -1)"
done
date >> $L/times.txt; fin
timeout 330 $B/run-gpu-tests.sh $L/tests > $L/gpu_tests.txt 2>&1; echo "rc=$?" >> $L/gpu_tests.txt
grep -E "^PASS|^FAIL|gpu-tests|rc=" $L/gpu_tests.txt
date >> $L/times.txt; fin
