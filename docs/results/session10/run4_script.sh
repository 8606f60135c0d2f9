#!/bin/bash
# Session 10 run 4: run 3's comparison again with the loop fixed (run 3 passed `env` a
# shell function): 1 GiB u32 (sync before every timed run) with positioned writes; the
# default mapped output (4 populating threads after the pinning, 2 MiB slices, aligned
# mapping with MADV_HUGEPAGE); without the huge advice; with 0 and 8 populating
# threads; a trace of each; and 50M i64 text with positioned, default and no-huge.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
[ -x $B/host ] || (cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
H=$B/host; W=/tmp/fw; mkdir -p $W
tm() { local s e; s=$(date +%s%N); "$@" > $L/last.txt 2>&1; local rc=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms rc=$rc $(grep -o 'busy.*\|chunk.*;.*' $L/last.txt | tr '\n' ' ')"; }
$H gen -o $W/u32.bin --n 2^28 --type u32 > /dev/null; cat $W/u32.bin > /dev/null
declare -A E=( [positioned]="SORT_FILE_WRITE=positioned" [default]="SORT_FILE_WRITE=mapped" [nohuge]="SORT_FILE_HUGE=0" [pop0]="SORT_FILE_POPULATE_THREADS=0" [pop8]="SORT_FILE_POPULATE_THREADS=8" )
for r in 1 2 3; do
  for v in positioned default nohuge pop0 pop8; do
    rm -f $W/out.bin; sync
    echo "1 GiB u32 $v r$r: $(tm env ${E[$v]} $H sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu)" | tee -a $L/file.txt
  done
done
$H check-file --type u32 -i $W/u32.bin -o $W/out.bin | head -1 | tee -a $L/file.txt
for v in positioned default nohuge pop0 pop8; do
  rm -f $W/out.bin; sync
  env ${E[$v]} SORT_TRACE=1 $H sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu > $L/trace_$v.txt 2>&1
done
rm -f $W/*.bin; sync
$H gen -o $W/i64.txt --n 50M --type i64 --text > /dev/null; cat $W/i64.txt > /dev/null
for r in 1 2; do
  for v in positioned default nohuge; do
    rm -f $W/out_$v.txt; sync
    echo "50M i64 text $v r$r: $(tm env ${E[$v]} $H sort -i $W/i64.txt -o $W/out_$v.txt --type i64 --text --require-gpu)" | tee -a $L/file.txt
  done
done
cmp $W/out_positioned.txt $W/out_default.txt && cmp $W/out_positioned.txt $W/out_nohuge.txt && echo "text outputs identical" | tee -a $L/file.txt
rm -rf $W; sync; date >> $L/times.txt; fin
