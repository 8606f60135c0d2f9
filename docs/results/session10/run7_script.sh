#!/bin/bash
# Session 10 run 7 (run 6 again after the fix: the block ranking now takes its bin count from the radix digit width; in run 6 it kept 256 bins and the narrower builds trapped): radix digit width (issue 10 asks to measure 6..11 bits): 8-bit
# digits (host) against 7 and 6 (experiment builds host7, host6; features
# digit-bits-7 / digit-bits-6, 32-bit keys only), u32 keys and u32 + u32 pairs at
# 2^20 / 2^24 / 2^28, alternated twice; each checked against the CPU; CUB.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
xz -dc $C/host7.xz > $B/host7; xz -dc $C/host6.xz > $B/host6; chmod +x $B/host7 $B/host6; cp $B/host $B/host8
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for b in 8 7 6; do
  for n in 1000 7681 300007 10000019; do
    $B/host$b --variant radix --type u32 --n $n --check --repeat 1 --require-gpu >> $L/check_$b.txt 2>&1 || echo "host$b keys n=$n FAILED"
    $B/host$b --variant radix --type u32 --n $n --order desc --dist few-unique --check --repeat 1 --require-gpu >> $L/check_$b.txt 2>&1 || echo "host$b keys desc n=$n FAILED"
  done
  $B/host$b bench-pairs --type u32 --values u32 --n 300007,10000019 --repeat 1 >> $L/check_$b.txt 2>&1 || echo "host$b pairs FAILED"
  echo "host$b checks done (a FAILED line above if any failed)"
done
fin
for r in 1 2; do
  for b in 8 7 6; do
    $B/host$b bench --require-gpu --variants radix --type u32 --n 2^20,2^24,2^28 --repeat 10 > $L/keys_b${b}_r$r.txt 2>&1
    $B/host$b bench-pairs --type u32 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pairs_b${b}_r$r.txt 2>&1
  done
  fin
done
for b in 8 7 6; do echo "bits $b keys: $(grep -h 'radix  *u32' $L/keys_b${b}_r*.txt | awk '{printf "%s ", $9}')"; echo "bits $b pairs: $(grep -h '^u32' $L/pairs_b${b}_r*.txt | awk '{printf "%s ", $6}')"; done
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "radix u32\|d2d" $L/cub.txt
date >> $L/times.txt; fin
