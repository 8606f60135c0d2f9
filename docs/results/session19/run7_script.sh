#!/bin/bash
# Session 19 run 7: main (baf5376: the kernels of fbefb0a, PTX byte-identical) for issue
# 11's closing table with CUB in the same call, the other key-value rows, and the GPU
# suite.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; device_info; cub_start
A=/tmp/bundle/host
date > $L/times.txt
$A bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$A bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$A bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
fin
cub_run; fin
for kv in f32:u32 u64:u32 u64:u64; do
  IFS=: read -r k v <<< "$kv"
  $A bench-pairs --variant mergepath --type $k --values $v --n 2^22,2^24,2^26 --repeat 10 > $L/mp_pairs_${k}_$v.txt 2>&1
  echo "pairs $k + $v 2^22,24,26: $(grep -h "^$k" $L/mp_pairs_${k}_$v.txt | awk '{printf "%s ", $6}')"
done
fin
date >> $L/times.txt
timeout 240 /tmp/bundle/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "FAIL\|gpu-tests" $L/tests.txt
date >> $L/times.txt; fin
