#!/bin/bash
# Session 14 run 2: the bulk-copy merge (mergepath_merge_bulk_*, persistent, double
# buffered through the copy engine). Smoke check, gpu_mergepath with the default rules
# and with every multi-pass size on the partition (hence bulk) path, sanitizers on the
# bulk kernel, bulk against SORT_MERGEPATH_BULK=0 alternated twice, ncu of one pass.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
for t in u32 f32 u64 i64; do for o in asc desc; do
  timeout 30 $B/host --variant mergepath --type $t --n 2^24 --order $o --check --repeat 2 --require-gpu > $L/smoke_${t}_$o.txt 2>&1; echo "smoke $t $o rc=$? $(grep -h 'check\|Gkeys' $L/smoke_${t}_$o.txt | tail -1)"
done; done
fin
timeout 200 $B/tests/gpu_mergepath-test > $L/t_mp.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/t_mp.txt)"
SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 200 $B/tests/gpu_mergepath-test > $L/t_mp_bulk.txt 2>&1; echo "gpu_mergepath all-bulk rc=$? $(grep -h '^test result' $L/t_mp_bulk.txt)"
grep -h "FAIL\|panicked" $L/t_mp*.txt | head -10
fin
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "bulk u32 $tool rc=$?"
  SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type f64 --order desc --n 1000003 --check --repeat 1 --require-gpu > $L/san_f64_$tool.log 2>&1; echo "bulk f64 desc $tool rc=$?"
  fin
done
for r in 1 2; do for bk in 1 0; do
  SORT_MERGEPATH_BULK=$bk $B/host bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_b${bk}_r$r.txt 2>&1
  echo "bulk=$bk r$r: $(grep -h '^mergepath ' $L/keys_b${bk}_r$r.txt | awk '{printf "%s ", $9}')"
done; fin; done
timeout 120 ncu --set full -k regex:mergepath_merge_bulk_u32 -s 5 -c 1 -o /tmp/mb $B/host --variant mergepath --type u32 --n 2^24 --repeat 1 --require-gpu > $L/ncu_mb_run.txt 2>&1; echo "ncu rc=$?"
ncu -i /tmp/mb.ncu-rep --page details > $L/ncu_mb_details.txt 2>&1
grep -h "Duration\|DRAM Throughput\|Compute (SM) Throughput\|Issue Slots Busy\|Registers Per\|Achieved Occupancy" $L/ncu_mb_details.txt
date >> $L/times.txt; fin
