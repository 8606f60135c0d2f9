#!/bin/bash
# Session 19 run 2 (warm machine of run 1): why b is slower than hd. Kernel times of u32
# at 2^24 and 2^28 (hd, b), and the SASS of both builds' x8 u32 block sort and u32 merge.
. docs/results/lib.sh
[ -x /tmp/bundle/host ] || unpack h.tar.xz /tmp/bundle
[ -x /tmp/hd/host ] || unpack hd.tar.xz /tmp/hd
device_info
date > $L/times.txt
for v in hd:/tmp/hd b:/tmp/bundle; do
  IFS=: read -r name dir <<< "$v"
  for n in 24 28; do
    ncu_times u32_${n}_$name $dir/host bench --require-gpu --variants mergepath --type u32 --n 2^$n --repeat 1
    echo "== $name 2^$n"; python3 docs/results/ncu_times.py $L/u32_${n}_${name}_ncu.csv | grep -v "^=="; fin
  done
  xz -dc $C/$name.cubin.xz > /tmp/$name.cubin
  for f in mergepath_block_sort_x8_u32 mergepath_merge_u32; do
    cuobjdump -fun $f -sass /tmp/$name.cubin > $L/sass_${f}_$name.txt 2>&1; echo "sass $f $name rc=$? $(wc -l < $L/sass_${f}_$name.txt) lines"
  done
  fin
done
date >> $L/times.txt; fin
