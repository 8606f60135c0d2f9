#!/bin/bash
# Session 13 run 3: the committed build (wide block sorts: x2 for 4-byte keys, x4 for
# 8-byte keys and pairs). Issue 11 table with CUB in the same call, the narrow block
# sort (SORT_MERGEPATH_WIDE=0) for reference, the GPU suite, the --ignored mergepath
# tests, sanitizers on the wide kernels.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
$B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "mergepath: $(grep -h '^mergepath ' $L/mp_keys.txt $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
SORT_MERGEPATH_WIDE=0 $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^24,2^28 --repeat 10 > $L/w0_keys.txt 2>&1
SORT_MERGEPATH_WIDE=0 $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/w0_pairs.txt 2>&1
echo "WIDE=0: $(grep -h '^mergepath ' $L/w0_keys.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/w0_pairs.txt | awk '{printf "%s ", $6}')"
$B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^24,2^28 --repeat 10 > $L/mp_keys_b.txt 2>&1
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/mp_pairs_b.txt 2>&1
echo "again: $(grep -h '^mergepath ' $L/mp_keys_b.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs_b.txt | awk '{printf "%s ", $6}')"
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge\|d2d" $L/cub.txt
fin
timeout 240 $B/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "PASS\|FAIL\|gpu-tests" $L/tests.txt
fin
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "mergepath u32 (x2) $tool rc=$?" | tee -a $L/sanitize.txt
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type i64 --n 3000007 --check --repeat 1 --require-gpu --order desc > $L/san_i64_$tool.log 2>&1; echo "mergepath i64 desc (x4) $tool rc=$?" | tee -a $L/sanitize.txt
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 3000007 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "mergepath pairs (kv x4) $tool rc=$?" | tee -a $L/sanitize.txt
  fin
done
timeout 150 $B/tests/gpu_mergepath-test --ignored --test-threads=1 > $L/t_gpu_mergepath_ignored.txt 2>&1; echo "gpu_mergepath ignored rc=$? $(grep -h '^test result' $L/t_gpu_mergepath_ignored.txt | tail -1)"
date >> $L/times.txt; fin
