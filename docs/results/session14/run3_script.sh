#!/bin/bash
# Session 14 run 3: 33 keys per thread for 4-byte keys alone (tile 8,448; a Batcher
# network in registers for primitive keys alone), key-value kernels keep 19 / 13.
# GPU tests (mergepath, records, multi, file sort, mergepath --ignored), sanitizers,
# new against the previous build (carry/base.tar.xz: main's kernels plus the unused
# bulk merge, run with SORT_MERGEPATH_BULK=0) alternated twice, ncu, CUB.
set -u
C=$PWD/carry; B=/tmp/bundle; O=/tmp/base; L=$OUT/logs; mkdir -p $B $O $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) && (cd $O && xz -dc $C/base.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for t in gpu_mergepath gpu_records gpu_multi gpu_file_sort; do
  timeout 200 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "$t rc=$? $(grep -h '^test result' $L/t_$t.txt)"
done
grep -h "FAIL\|panicked" $L/t_*.txt | head -10
fin
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 $tool rc=$?"
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type f32 --order desc --n 777777 --check --repeat 1 --require-gpu > $L/san_f32_$tool.log 2>&1; echo "f32 desc $tool rc=$?"
  fin
done
for r in 1 2; do
  $B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_new_r$r.txt 2>&1
  echo "new  r$r: $(grep -h '^mergepath ' $L/keys_new_r$r.txt | awk '{printf "%s ", $9}')"
  SORT_MERGEPATH_BULK=0 $O/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_base_r$r.txt 2>&1
  echo "base r$r: $(grep -h '^mergepath ' $L/keys_base_r$r.txt | awk '{printf "%s ", $9}')"
  fin
done
$B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pairs_new.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type entity --n 2^20,2^24 --repeat 10 > $L/entity_new.txt 2>&1
echo "pairs: $(grep -h '^u32' $L/pairs_new.txt | awk '{printf "%s ", $6}') entity: $(grep -h '^mergepath ' $L/entity_new.txt | awk '{printf "%s ", $9}')"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
timeout 90 ncu --metrics $M -k regex:"mergepath_(block_sort|merge_u32)" -c 4 $B/host --variant mergepath --type u32 --n 2^24 --repeat 1 --require-gpu > $L/ncu_new.txt 2>&1; echo "ncu rc=$?"
grep -h "mergepath_\|duration\|inst_executed\|wavefronts\|conflicts\|l1tex__throughput\|dram__" $L/ncu_new.txt | head -40
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge u32 keys\|d2d" $L/cub.txt
fin
timeout 200 $B/tests/gpu_mergepath-test --ignored --test-threads=1 > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt | tail -1)"
date >> $L/times.txt; fin
