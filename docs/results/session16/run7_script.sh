#!/bin/bash
# Session 16 run 7: the build to commit (19 keys per thread for 8-byte keys alone):
# issue 11's table with CUB in the same call, then the GPU test binaries that run
# mergepath kernels besides gpu_mergepath (run 6): records, multi, file sort, limits,
# interop, api, cli, properties.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; rm -rf $B; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
$B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge\|d2d" $L/cub.txt
fin
timeout 200 $B/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "PASS\|FAIL\|gpu-tests" $L/tests.txt
date >> $L/times.txt; fin
