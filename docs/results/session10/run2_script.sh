#!/bin/bash
# Session 10 run 2: the mapped output after run 1 (8 populating threads, unmapped on a
# thread of its own; integers formatted two digits at a time): A/B against positioned
# writes with `sync` before every timed run (1 GiB u32 x 3, over an existing output,
# text, 8 GiB u64 chunked), and the file-sort GPU tests.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
date > $L/times.txt
for t in gpu_file_sort cli; do
  timeout 150 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
H=$B/host; W=/tmp/fw; mkdir -p $W
tm() { local s e; s=$(date +%s%N); "$@" > $L/last.txt 2>&1; local rc=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms rc=$rc $(grep -o 'busy.*\|chunk.*;.*' $L/last.txt | tr '\n' ' ')"; }
$H gen -o $W/u32.bin --n 2^28 --type u32 > /dev/null; cat $W/u32.bin > /dev/null
for r in 1 2 3; do
  for m in positioned mapped; do
    rm -f $W/out.bin; sync
    echo "1 GiB u32 $m r$r: $(SORT_FILE_WRITE=$m tm $H sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu)" | tee -a $L/file.txt
  done
done
for m in positioned mapped; do
  sync
  echo "1 GiB u32 $m over the existing output: $(SORT_FILE_WRITE=$m tm $H sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu)" | tee -a $L/file.txt
done
$H check-file --type u32 -i $W/u32.bin -o $W/out.bin | head -1 | tee -a $L/file.txt
for m in positioned mapped; do
  rm -f $W/out_t.bin; sync
  SORT_TRACE=1 SORT_FILE_WRITE=$m $H sort -i $W/u32.bin -o $W/out_t.bin --type u32 --require-gpu > $L/trace_$m.txt 2>&1
done
rm -f $W/*.bin; sync
$H gen -o $W/i64.txt --n 50M --type i64 --text > /dev/null; cat $W/i64.txt > /dev/null
for r in 1 2; do
  for m in positioned mapped; do
    rm -f $W/out_$m.txt; sync
    echo "50M i64 text $m r$r: $(SORT_FILE_WRITE=$m tm $H sort -i $W/i64.txt -o $W/out_$m.txt --type i64 --text --require-gpu)" | tee -a $L/file.txt
  done
done
cmp $W/out_positioned.txt $W/out_mapped.txt && echo "text outputs identical" | tee -a $L/file.txt
rm -f $W/*.txt; sync
date >> $L/times.txt; fin
$H gen -o $W/u64.bin --n 2^30 --type u64 > /dev/null; cat $W/u64.bin > /dev/null
for m in positioned mapped; do
  rm -f $W/out.bin; sync
  echo "8 GiB u64 2G $m: $(SORT_FILE_WRITE=$m tm $H sort -i $W/u64.bin -o $W/out.bin --type u64 --require-gpu --max-device-bytes 2G)" | tee -a $L/file.txt
done
$H check-file --type u64 -i $W/u64.bin -o $W/out.bin | head -1 | tee -a $L/file.txt
rm -rf $W; sync; date >> $L/times.txt; fin
