#!/bin/bash
# Session 10 run 5: the committed build (binary outputs mapped without the huge-page
# advice, text positioned): the file-sort GPU tests, then docs/bench-file.sh.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
for t in gpu_file_sort cli; do
  timeout 150 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
fin
cp $C/cub_anchor.cu $C/torch_anchor.py $B/ 2>/dev/null
bash docs/bench-file.sh $B /tmp/bench-file > $L/bench_file.txt 2>&1
cat $L/bench_file.txt
date >> $L/times.txt; fin
