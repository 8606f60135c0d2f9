#!/bin/bash
# Session 10 run 9: the final commit (9929416, the mapped output's write_at unsafe with
# its callers' contracts; host only): file-sort GPU tests, and a 1 GiB u32 and a text
# sort checked with check-file.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
for t in gpu_file_sort cli; do
  timeout 150 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
H=$B/host; W=/tmp/fw; mkdir -p $W
$H gen -o $W/u32.bin --n 2^28 --type u32 > /dev/null; cat $W/u32.bin > /dev/null; sync
s=$(date +%s%N); $H sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu 2>&1 | grep -o 'busy.*'; e=$(date +%s%N); echo "1 GiB u32: $(( (e - s) / 1000000 )) ms"
$H check-file --type u32 -i $W/u32.bin -o $W/out.bin | head -1
$H gen -o $W/i64.txt --n 5M --type i64 --text > /dev/null
$H sort -i $W/i64.txt -o $W/out.txt --type i64 --text --require-gpu 2>&1 | tail -1
$H check-file --type i64 --text -i $W/i64.txt -o $W/out.txt | head -1
rm -rf $W
