#!/bin/bash
# Session 12 run 2: where to trigger the dependents. hostH (committed default: early
# trigger in every radix/mergepath kernel but the histogram), hostX (no early trigger:
# dependents launch as the last blocks exit), hostE (run 1: the histogram triggers
# early too), and hostH with SORT_PDL=0 (plain launches), alternated twice; radix and
# mergepath at 2^20..2^24. Checks of hostH first (the shared-memory allowance fix, the
# out-of-memory tests alone).
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
cp $B/host $B/hostH
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for t in gpu_radix gpu_mergepath gpu_records; do
  timeout 120 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "$t rc=$? $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
for f in radix_out_of_memory radix_packed_pairs_fall_back; do
  timeout 60 $B/tests/gpu_radix-test --ignored $f > $L/t_$f.txt 2>&1; echo "$f rc=$? $(grep -h '^test result' $L/t_$f.txt | tail -1)"
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san_p.log 2>&1; echo "radix pairs racecheck rc=$?"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host --variant radix --type u64 --n 1000003 --check --repeat 2 --require-gpu > $L/san_k.log 2>&1; echo "radix u64 memcheck rc=$?"
fin
for r in 1 2; do
  for cfg in H:1 X:1 E:1 H:0; do
    h=${cfg%:*}; p=${cfg#*:}; tag=$h$p
    export SORT_PDL=$p
    $B/host$h bench --require-gpu --variants radix --type u32,u64 --n 2^20,2^21,2^22,2^24 --repeat 10 > $L/rkeys_${tag}_r$r.txt 2>&1
    $B/host$h bench-pairs --type u32 --values u32 --n 2^20,2^22,2^24 --repeat 10 > $L/rpairs_${tag}_r$r.txt 2>&1
    $B/host$h bench --require-gpu --variants mergepath --type u32 --n 2^20,2^22,2^24 --repeat 10 > $L/mkeys_${tag}_r$r.txt 2>&1
    $B/host$h bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^24 --repeat 10 > $L/mpairs_${tag}_r$r.txt 2>&1
    echo "$tag r$r radix: $(grep -h '^radix ' $L/rkeys_${tag}_r$r.txt | awk '{printf "%s ", $9}')pairs: $(grep -h '^u32' $L/rpairs_${tag}_r$r.txt | awk '{printf "%s ", $6}')mergepath: $(grep -h '^mergepath ' $L/mkeys_${tag}_r$r.txt | awk '{printf "%s ", $9}')pairs: $(grep -h '^u32' $L/mpairs_${tag}_r$r.txt | awk '{printf "%s ", $6}')"
  done
  fin
done
unset SORT_PDL
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "radix u32\|pairs\|d2d\|merge u32" $L/cub.txt | grep -v " 26 \| 28 "
date >> $L/times.txt; fin
