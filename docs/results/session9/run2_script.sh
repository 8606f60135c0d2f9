#!/bin/bash
# Session 9 run 2: packed pairs with the key's digit by 32-bit operations (B, `Packed`)
# against run 1's 64-bit digit (A); the split/packed crossover; OOM fall-back; file
# sort staging and exit experiments; CUB.
set -u
C=$PWD/carry; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
for t in gpu_radix gpu_records gpu_segmented gpu_interop cli gpu_file_sort; do
  timeout 200 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
for t in radix_packed_pairs_fall_back radix_out_of_memory; do
  timeout 100 $B/tests/gpu_radix-test --ignored $t > $L/t_ignored_$t.txt 2>&1; echo "rc=$?" >> $L/t_ignored_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_ignored_$t.txt | tail -1)"
done
date >> $L/times.txt; fin
for p in through alternate; do
  for tool in memcheck racecheck synccheck; do
    [ $p = alternate ] && [ $tool != memcheck ] && continue
    SORT_RADIX_PAIRS=$p timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san.log 2>&1
    echo "$p $tool pairs rc=$?" >> $L/sanitize.txt; tail -2 $L/san.log >> $L/sanitize.txt
  done
done
cat $L/sanitize.txt; date >> $L/times.txt; fin
N=2^22,2^23,12582912,2^24,2^26,2^28
for h in host hostA; do $B/$h bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; done
for r in 1 2; do
  SORT_RADIX_PAIRS=through $B/hostA bench-pairs --type u32 --values u32 --n $N --repeat 10 > $L/pairs_A_r$r.txt 2>&1
  SORT_RADIX_PAIRS=through $B/host bench-pairs --type u32 --values u32 --n $N --repeat 10 > $L/pairs_B_r$r.txt 2>&1
  SORT_RADIX_PAIRS=split $B/host bench-pairs --type u32 --values u32 --n $N --repeat 10 > $L/pairs_split_r$r.txt 2>&1
  fin
done
$B/host bench-pairs --type u32,u64 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pairs_default.txt 2>&1
$B/host bench-pairs --type u32 --n 2^24 --repeat 10 --argsort > $L/argsort_default.txt 2>&1
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1
grep -h "16777216\|268435456" $L/pairs_*_r1.txt $L/pairs_default.txt; grep "pairs" $L/cub.txt
date >> $L/times.txt; fin
W=/tmp/fw; mkdir -p $W
tm() { local s e; s=$(date +%s%N); "$@"; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms"; }
{
echo "new 1 GiB file (dd, page cache): $(tm dd if=/dev/zero of=$W/z.bin bs=64M count=16 2>/dev/null)"
echo "overwrite it in place:           $(tm dd if=/dev/zero of=$W/z.bin bs=64M count=16 conv=notrunc 2>/dev/null)"
echo "read it (page cache):            $(tm dd if=$W/z.bin of=/dev/null bs=64M 2>/dev/null)"
rm -f $W/z.bin
echo "new 1 GiB file, O_DIRECT:        $(tm dd if=/dev/zero of=$W/z.bin bs=64M count=16 oflag=direct 2>/dev/null)"
rm -f $W/z.bin; df -hT /tmp | tail -1
} > $L/dd.txt 2>&1
$B/host gen -o $W/u32.bin --n 2^28 --type u32 > /dev/null; cat $W/u32.bin > /dev/null
for r in 1 2; do
  for st in 67108864:3 16777216:4 8388608:4; do
    for ex in release keep _exit; do
      s=$(date +%s%N)
      SORT_TRACE=1 SORT_FILE_STAGE_BYTES=${st%:*} SORT_FILE_STAGES=${st#*:} SORT_EXIT_MODE=$ex $B/host sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu > $L/f_${st%:*}_${ex}_r$r.txt 2>&1
      e=$(date +%s%N); echo "stage $st exit $ex r$r: wall $(( (e - s) / 1000000 )) ms" | tee -a $L/file_summary.txt
      rm -f $W/out.bin
    done
  done
done
$B/host sort -i $W/u32.bin -o $W/out.bin --type u32 --require-gpu > /dev/null 2>&1; $B/host check-file --type u32 -i $W/u32.bin -o $W/out.bin > $L/file_check.txt 2>&1
echo "numpy: $(tm python3 -c "import numpy as np; a=np.fromfile('$W/u32.bin', dtype=np.uint32); a.sort(); a.tofile('$W/np.bin')")" >> $L/file_summary.txt
rm -rf $W; date >> $L/times.txt; fin
