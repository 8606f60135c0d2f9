#!/bin/bash
# Session 10 run 3: the mapped output's populating and page size, 1 GiB u32 (sync before
# every timed run): positioned writes; mapped with 4 populating threads started after
# the pinning, 2 MiB slices, 2 MiB-aligned mapping with MADV_HUGEPAGE (the build's
# default); the same without the huge advice; with 0 and 8 populating threads; a trace
# of each; the file-sort GPU tests; then docs/bench-file.sh for issue 13's table.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/shmem_enabled >> $L/device.txt 2>&1
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
for t in gpu_file_sort cli; do
  timeout 150 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
H=$B/host; W=/tmp/fw; mkdir -p $W
tm() { local s e; s=$(date +%s%N); "$@" > $L/last.txt 2>&1; local rc=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms rc=$rc $(grep -o 'busy.*\|chunk.*;.*' $L/last.txt | tr '\n' ' ')"; }
$H gen -o $W/u32.bin --n 2^28 --type u32 > /dev/null; cat $W/u32.bin > /dev/null
declare -A E=( [positioned]="SORT_FILE_WRITE=positioned" [default]="SORT_FILE_WRITE=mapped" [nohuge]="SORT_FILE_HUGE=0" [pop0]="SORT_FILE_POPULATE_THREADS=0" [pop8]="SORT_FILE_POPULATE_THREADS=8" )
for r in 1 2 3; do
  for v in positioned default nohuge pop0 pop8; do
    rm -f $W/out.bin; sync
    echo "1 GiB u32 $v r$r: $(env ${E[$v]} tm $H sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu)" | tee -a $L/file.txt
  done
done
$H check-file --type u32 -i $W/u32.bin -o $W/out.bin | head -1 | tee -a $L/file.txt
for v in positioned default nohuge pop0 pop8; do
  rm -f $W/out.bin; sync
  env ${E[$v]} SORT_TRACE=1 $H sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu > $L/trace_$v.txt 2>&1
  grep -h "FilePmdMapped\|FileHugePages" /proc/meminfo | tr '\n' ' ' >> $L/trace_$v.txt
done
rm -rf $W; sync; date >> $L/times.txt; fin
cp $C/cub_anchor.cu $C/torch_anchor.py $B/ 2>/dev/null
bash docs/bench-file.sh $B /tmp/bench-file > $L/bench_file.txt 2>&1
cat $L/bench_file.txt
date >> $L/times.txt; fin
