#!/bin/bash
# Session 9 run 5: the final numbers of the committed build: radix keys and pairs
# (packed and, for comparison, split), argsort, records, Entity; CUB right after; the
# file-sort benchmark of issue 13 (docs/bench-file.sh).
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
H=$B/host
$H bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1
$H bench --require-gpu --variants radix --type u32,u64,f32,i64 --n 2^20,2^24,2^28 --repeat 10 > $L/keys.txt 2>&1
for r in 1 2; do $H bench-pairs --type u32,u64 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pairs_r$r.txt 2>&1; done
SORT_RADIX_PAIRS=split $H bench-pairs --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/pairs_split.txt 2>&1
$H bench-pairs --type u32 --n 2^24 --repeat 10 --argsort > $L/argsort.txt 2>&1
$H bench-records --record-size 32 --key-offset 0 --key-type u32 --n 2^24 --repeat 10 > $L/records.txt 2>&1
$H bench --require-gpu --variants radix,mergepath --type entity --n 2^24 --repeat 10 > $L/entity.txt 2>&1
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1
grep -h "^u32\|^u64" $L/pairs_r1.txt $L/pairs_split.txt; grep -h "radix  *u32\|radix  *u64" $L/keys.txt | grep -v "^\[" ; grep "radix u32\|radix u64\|d2d" $L/cub.txt
date >> $L/times.txt; fin
cp $C/cub_anchor.cu $C/torch_anchor.py $B/ 2>/dev/null
bash docs/bench-file.sh $B /tmp/bench-file > $L/bench_file.txt 2>&1
cat $L/bench_file.txt
date >> $L/times.txt; fin
