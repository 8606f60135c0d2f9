#!/bin/bash
# Session 10 run 1: (a) the packed pair pass at 16 items x 3 blocks/SM (hostX, feature
# packed-16x3) against 24 x 2 (host), alternated twice, and CUB; (b) the file sort's
# output written through a mapping (default) against positioned writes
# (SORT_FILE_WRITE=positioned): 1 GiB u32, 50M i64 text, 8 GiB u64 chunked; (c) the GPU
# tests that reach the changed code (radix, records, file sort, cli) and sanitizers on
# the 16 x 3 packed pass.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
uname -r >> $L/device.txt; df -T /tmp | tail -1 >> $L/device.txt; nproc >> $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for t in gpu_radix gpu_records gpu_file_sort cli; do
  timeout 150 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
date >> $L/times.txt; fin
H=$B/host; X=$C/hostX
$H bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; $X bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1
for r in 1 2; do
  $H bench-pairs --type u32 --values u32 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/pairs_24x2_r$r.txt 2>&1
  $X bench-pairs --type u32 --values u32 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/pairs_16x3_r$r.txt 2>&1
done
$X bench-pairs --type u32 --n 2^24 --repeat 10 --argsort > $L/argsort_16x3.txt 2>&1
$H bench-pairs --type u32 --n 2^24 --repeat 10 --argsort > $L/argsort_24x2.txt 2>&1
grep -H "^u32" $L/pairs_*_r*.txt | sed 's|.*/||'
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "radix u32\|d2d" $L/cub.txt
date >> $L/times.txt; fin
for tool in memcheck racecheck synccheck; do
  SORT_RADIX_PACKED_MIN=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $X bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san.log 2>&1
  echo "16x3 packed $tool pairs 300007 rc=$?" | tee -a $L/sanitize_16x3.txt
done
date >> $L/times.txt; fin
W=/tmp/fw; mkdir -p $W
tm() { local s e; s=$(date +%s%N); "$@" > $L/last.txt 2>&1; local rc=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms rc=$rc $(grep -o 'busy.*\|chunk.*;.*' $L/last.txt | tr '\n' ' ')"; }
$H gen -o $W/u32.bin --n 2^28 --type u32 > /dev/null; cat $W/u32.bin > /dev/null
for r in 1 2 3; do
  for m in positioned mapped; do
    echo "1 GiB u32 $m r$r: $(SORT_FILE_WRITE=$m tm $H sort -i $W/u32.bin -o $W/out_$m$r.bin --type u32 --require-gpu)" | tee -a $L/file.txt
  done
done
$H check-file --type u32 -i $W/u32.bin -o $W/out_mapped3.bin | head -1 | tee -a $L/file.txt
rm -f $W/out_*; sync
for m in positioned mapped; do
  SORT_TRACE=1 SORT_FILE_WRITE=$m $H sort -i $W/u32.bin -o $W/out_t.bin --type u32 --require-gpu > $L/trace_$m.txt 2>&1
  rm -f $W/out_t.bin; sync
done
rm -f $W/u32.bin
$H gen -o $W/i64.txt --n 50M --type i64 --text > /dev/null; cat $W/i64.txt > /dev/null
for m in positioned mapped; do
  echo "50M i64 text $m: $(SORT_FILE_WRITE=$m tm $H sort -i $W/i64.txt -o $W/out_$m.txt --type i64 --text --require-gpu)" | tee -a $L/file.txt
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
rm -rf $W; date >> $L/times.txt; fin
