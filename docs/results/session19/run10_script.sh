#!/bin/bash
# Session 19 run 10 (warm machine of run 9): g's two parts apart. p: the L2 prefetch
# alone; s: the bulk store alone; against hd and g, alternated twice at the sizes of the
# cluster block sort; ncu kernel times of u32 at 2^24.
. docs/results/lib.sh
[ -x /tmp/bundle/host ] || unpack h.tar.xz /tmp/bundle
[ -x /tmp/hd/host ] || unpack hd.tar.xz /tmp/hd
unpack p.tar.xz /tmp/p; unpack s.tar.xz /tmp/s; device_info
date > $L/times.txt
KN=2^24,2^26,2^28 JN=2^24,2^28 PN=2^28
bench_alternate 2 hd:/tmp/hd g:/tmp/bundle p:/tmp/p s:/tmp/s
for v in hd:/tmp/hd g:/tmp/bundle p:/tmp/p s:/tmp/s; do
  IFS=: read -r name dir <<< "$v"
  ncu_times u32_24_$name $dir/host bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1
  echo "== $name u32 2^24"; python3 docs/results/ncu_times.py $L/u32_24_${name}_ncu.csv | grep block_sort; fin
done
date >> $L/times.txt; fin
