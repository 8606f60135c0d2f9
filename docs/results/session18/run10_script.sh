#!/bin/bash
# Session 18 run 10: width 4 from 1.5 waves of its blocks (was 1.75) for 4-byte keys
# alone (`z`) against a7cf315 (the bundle's host), alternated twice, at the sizes
# around the thresholds; checks at those sizes.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; unpack z.tar.xz /tmp/z; device_info
for round in 1 2; do
  for v in a:/tmp/bundle z:/tmp/z; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,f32 --n 6500000,6700000,7100000,7500000,8388608 --repeat 10 > $L/k_$name$round.txt 2>&1
    echo "$name$round u32,f32 6.5M,6.7M,7.1M,7.5M,2^23: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}')"
  done
  fin
done
for t in u32 f32 i32; do
  for n in 6700000 7500000; do
    /tmp/z/host --variant mergepath --type $t --order desc --dist few-unique --n $n --check --repeat 1 --require-gpu > $L/c_${t}_${n}.txt 2>&1; echo "$t $n rc=$? $(grep -ho 'check[^|]*' $L/c_${t}_${n}.txt | head -1)"
  done
done | tee $L/checks.txt
fin
