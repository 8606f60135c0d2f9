#!/bin/bash
# Session 14 run 4: dense block-sort rounds (no per-pair shift or sentinel while a pair
# is shorter than a warp; B's end tested instead) and 17 keys per thread for 8-byte
# keys alone. GPU tests, sanitizers, new against run 3's build (carry/prev.tar.xz)
# alternated twice, ncu of the block sorts.
set -u
C=$PWD/carry; B=/tmp/bundle; O=/tmp/prev; L=$OUT/logs; mkdir -p $B $O $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) && (cd $O && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
for t in gpu_mergepath gpu_records gpu_multi; do
  timeout 200 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "$t rc=$? $(grep -h '^test result' $L/t_$t.txt)"
done
grep -h "FAIL\|panicked" $L/t_*.txt | head -10
fin
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 $tool rc=$?"
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type i64 --order desc --n 3000007 --check --repeat 1 --require-gpu > $L/san_i64_$tool.log 2>&1; echo "i64 desc $tool rc=$?"
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 1000003 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "pairs $tool rc=$?"
  fin
done
for r in 1 2; do
  $B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_new_r$r.txt 2>&1
  $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/pairs_new_r$r.txt 2>&1
  echo "new  r$r: $(grep -h '^mergepath ' $L/keys_new_r$r.txt | awk '{printf "%s ", $9}') pairs $(grep -h '^u32' $L/pairs_new_r$r.txt | awk '{printf "%s ", $6}')"
  $O/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_prev_r$r.txt 2>&1
  $O/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/pairs_prev_r$r.txt 2>&1
  echo "prev r$r: $(grep -h '^mergepath ' $L/keys_prev_r$r.txt | awk '{printf "%s ", $9}') pairs $(grep -h '^u32' $L/pairs_prev_r$r.txt | awk '{printf "%s ", $6}')"
  fin
done
M=gpu__time_duration.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
for h in $B $O; do for t in u32 u64; do
  timeout 60 ncu --metrics $M -k regex:"mergepath_block_sort" -c 1 $h/host --variant mergepath --type $t --n 2^24 --repeat 1 --require-gpu > $L/ncu_$(basename $h)_$t.txt 2>&1
  echo "$h $t: $(grep -h 'duration\|inst_executed\|wavefronts\|conflicts' $L/ncu_$(basename $h)_$t.txt | awk '{printf "%s ", $NF}')"
done; done
timeout 200 $B/tests/gpu_mergepath-test --ignored --test-threads=1 > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt | tail -1)"
date >> $L/times.txt; fin
