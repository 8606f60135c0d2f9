#!/bin/bash
# Session 12 run 1: programmatic dependent launch (PDL) of the radix and mergepath
# kernels. GPU suite with PDL on (the default with the sm_90 cubin); sanitizers with
# PDL; then the same binary with SORT_PDL=0 (plain launches) against PDL, alternated
# twice: radix u32/u64 keys, u32 + u32 pairs, mergepath u32/u64/pairs/Entity; CUB.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
$B/host --variant radix --type u32 --n 16777216 --check --repeat 1 --require-gpu > $L/source.txt 2>&1; grep -h "kernels:\|check" $L/source.txt | head -3
timeout 300 $B/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "PASS\|FAIL\|gpu-tests" $L/tests.txt
fin
for t in gpu_radix gpu_mergepath; do
  timeout 150 $B/tests/$t-test --ignored --test-threads=1 > $L/t_${t}_ignored.txt 2>&1; echo "$t ignored rc=$? $(grep -h '^test result' $L/t_${t}_ignored.txt | tail -1)"
done
fin
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant radix --type u32 --n 300007 --check --repeat 2 --require-gpu > $L/san_r_$tool.log 2>&1; echo "radix keys $tool rc=$?" | tee -a $L/sanitize.txt
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san_p_$tool.log 2>&1; echo "radix pairs $tool rc=$?" | tee -a $L/sanitize.txt
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host --variant mergepath --type u32 --n 300007 --check --repeat 2 --require-gpu > $L/san_m_$tool.log 2>&1; echo "mergepath keys $tool rc=$?" | tee -a $L/sanitize.txt
done
fin
for r in 1 2; do
  for p in 1 0; do
    export SORT_PDL=$p
    $B/host bench --require-gpu --variants radix --type u32,u64 --n 2^20,2^22,2^24,2^28 --repeat 10 > $L/rkeys_p${p}_r$r.txt 2>&1
    $B/host bench-pairs --type u32 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/rpairs_p${p}_r$r.txt 2>&1
    $B/host bench --require-gpu --variants mergepath --type u32 --n 2^20,2^22,2^24,2^28 --repeat 10 > $L/mkeys_p${p}_r$r.txt 2>&1
    echo "PDL=$p r$r radix: $(grep -h '^radix ' $L/rkeys_p${p}_r$r.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/rpairs_p${p}_r$r.txt | awk '{printf "%s ", $6}') mergepath: $(grep -h '^mergepath ' $L/mkeys_p${p}_r$r.txt | awk '{printf "%s ", $9}')"
  done
  fin
done
for p in 1 0; do
  export SORT_PDL=$p
  $B/host bench --require-gpu --variants mergepath --type u64,entity --n 2^20,2^24 --repeat 10 > $L/mother_p$p.txt 2>&1
  $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^24 --repeat 10 > $L/mpairs_p$p.txt 2>&1
  echo "PDL=$p mergepath u64/entity: $(grep -h '^mergepath ' $L/mother_p$p.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mpairs_p$p.txt | awk '{printf "%s ", $6}')"
done
unset SORT_PDL
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "radix u32\|radix u64\|pairs\|d2d\|merge" $L/cub.txt
date >> $L/times.txt; fin
