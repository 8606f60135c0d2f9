#!/bin/bash
# Session 9 run 6: after the review clean-up (radix_copy_back and radix_unpack_back
# share their plan check and loop; the chunked file sort builds one report): the GPU
# tests that reach them, sanitizers on radix (split, packed, odd pass counts), and the
# chunked 8 GiB file sort again.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
for t in gpu_radix gpu_records gpu_segmented gpu_file_sort cli gpu_multi gpu_topk; do
  timeout 150 $B/tests/$t-test > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
  echo "$t: $(grep -h '^test result' $L/t_$t.txt | tail -1)"
done
timeout 120 $B/tests/gpu_radix-test --ignored radix_2p28 > $L/t_ignored_2p28.txt 2>&1; echo "2p28 rc=$?"
fin
timeout 200 $B/sanitize.sh $L/sanitize radix > $L/sanitize_radix.txt 2>&1; tail -1 $L/sanitize_radix.txt
for tool in memcheck racecheck synccheck; do
  SORT_RADIX_PACKED_MIN=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host bench-pairs --type u32 --values u32 --n 300007 --repeat 1 > $L/san.log 2>&1
  echo "packed $tool rc=$?" | tee -a $L/sanitize_packed.txt
done
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/host --variant radix --type u32 --n 300007 --dist two-values --check --repeat 1 --require-gpu > $L/san.log 2>&1
echo "split memcheck two-values (skipped passes, copy-back) rc=$?" | tee -a $L/sanitize_packed.txt
fin
W=/tmp/fw; mkdir -p $W
$B/host gen -o $W/u64.bin --n 2^27 --type u64 > /dev/null; cat $W/u64.bin > /dev/null
tm() { local s e; s=$(date +%s%N); "$@" > $L/last.txt 2>&1; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms $(grep -o 'busy.*\|chunks;.*' $L/last.txt)"; }
echo "1 GiB u64: $(tm $B/host sort -i $W/u64.bin -o $W/out.bin --type u64 --require-gpu)" | tee -a $L/file.txt
$B/host gen -o $W/u64.bin --n 2^30 --type u64 > /dev/null; cat $W/u64.bin > /dev/null
echo "8 GiB u64, 2G: $(tm $B/host sort -i $W/u64.bin -o $W/out.bin --type u64 --require-gpu --max-device-bytes 2G)" | tee -a $L/file.txt
$B/host check-file --type u64 -i $W/u64.bin -o $W/out.bin | head -1 | tee -a $L/file.txt
rm -rf $W; fin
