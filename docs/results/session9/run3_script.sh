#!/bin/bash
# Session 9 run 3: items per thread of the packed pair pass (20..28, experiment build
# hostX loading each PTX through SORT_PTX_FILE); the file-sort benchmark of issue 13
# (docs/bench-file.sh) with the new staging; CUB.
set -u
C=$PWD/carry; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
V="20 22 24 26 28"
run() { local i=$1; shift; SORT_PTX_FILE=$B/v$i.ptx SORT_RADIX_PACKED_ITEMS=$i SORT_RADIX_PAIRS=through $B/hostX "$@"; }
for i in $V; do run $i bench-pairs --type u32 --values u32 --n 2^20 --repeat 2 > $L/warm_v$i.txt 2>&1; done
for r in 1 2; do
  for i in $V; do run $i bench-pairs --type u32 --values u32 --n 2^23,2^24,2^26,2^28 --repeat 10 > $L/items_v${i}_r$r.txt 2>&1; done
  fin
done
for i in $V; do echo "v$i: $(grep -h '^u32' $L/items_v${i}_r*.txt | awk '{printf "%s %s | ", $3, $4}')"; done
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "radix u32 pairs" $L/cub.txt
date >> $L/times.txt; fin
cp $C/cub_anchor.cu $C/torch_anchor.py $B/ 2>/dev/null
bash docs/bench-file.sh $B /tmp/bench-file > $L/bench_file.txt 2>&1
cat $L/bench_file.txt
date >> $L/times.txt; fin
