#!/bin/bash
# Session 12 run 3: the committed build (dependent launches: every radix/mergepath
# kernel waits for the previous grid, none triggers early). Issue 10 and 11 tables
# with CUB in the same call, SORT_PDL=0 once for reference; then the GPU suite, the
# 2^28 / 2^31 + 1000 tests, and the sanitizers.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
$B/host bench --require-gpu --variants radix --type u32,u64,f32,i64 --n 2^20,2^24,2^28 --repeat 10 > $L/radix_keys.txt 2>&1
$B/host bench-pairs --type u32 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/radix_pairs.txt 2>&1
$B/host bench-pairs --type u32 --values u32 --n 2^24 --repeat 10 > $L/radix_pairs_b.txt 2>&1
echo "radix: $(grep -h '^radix ' $L/radix_keys.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/radix_pairs.txt $L/radix_pairs_b.txt | awk '{printf "%s ", $6}')"
$B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "mergepath: $(grep -h '^mergepath ' $L/mp_keys.txt $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
export SORT_PDL=0
$B/host bench --require-gpu --variants radix,mergepath --type u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pdl0_keys.txt 2>&1
$B/host bench-pairs --type u32 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pdl0_pairs.txt 2>&1
echo "SORT_PDL=0: $(grep -h '^radix \|^mergepath ' $L/pdl0_keys.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/pdl0_pairs.txt | awk '{printf "%s ", $6}')"
unset SORT_PDL
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "radix\|merge\|d2d" $L/cub.txt | grep -v " 26 "
fin
timeout 240 $B/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "PASS\|FAIL\|gpu-tests" $L/tests.txt
fin
for tool in memcheck racecheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant radix --type u32 --n 300007 --check --repeat 2 --require-gpu > $L/san_r_$tool.log 2>&1; echo "radix keys $tool rc=$?" | tee -a $L/sanitize.txt
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "radix pairs $tool rc=$?" | tee -a $L/sanitize.txt
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u64 --n 300007 --check --repeat 2 --require-gpu > $L/san_m_$tool.log 2>&1; echo "mergepath keys $tool rc=$?" | tee -a $L/sanitize.txt
done
fin
for t in gpu_radix gpu_mergepath; do
  timeout 100 $B/tests/$t-test --ignored --test-threads=1 > $L/t_${t}_ignored.txt 2>&1; echo "$t ignored rc=$? $(grep -h '^test result' $L/t_${t}_ignored.txt | tail -1)"
  fin
done
date >> $L/times.txt; fin
