#!/bin/bash
# Session 19 run 9: the cluster block sort through the copy engine (`g`: an L2 bulk
# prefetch of the tile a block of the next wave sorts, and a bulk store of each whole
# sorted tile; gpu::prefetch_l2_bulk, gpu::bulk_store) against fbefb0a (`hd`, main's
# kernels), alternated twice; ncu kernel times of u32 at 2^24 and 2^28 (hd, g); issue
# 11's table of g with CUB in the same call.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; unpack hd.tar.xz /tmp/hd; device_info; cub_start
date > $L/times.txt
bench_alternate 2 hd:/tmp/hd g:/tmp/bundle
date >> $L/times.txt
for v in hd:/tmp/hd g:/tmp/bundle; do
  IFS=: read -r name dir <<< "$v"
  for n in 24 28; do
    ncu_times u32_${n}_$name $dir/host bench --require-gpu --variants mergepath --type u32 --n 2^$n --repeat 1
    echo "== $name u32 2^$n"; python3 docs/results/ncu_times.py $L/u32_${n}_${name}_ncu.csv | grep -v "^=="; fin
  done
done
issue11_table
cub_run; fin
date >> $L/times.txt; fin
