#!/bin/bash
# Session 18 run 2: the cluster block sort (4-byte keys alone: clusters of 4 blocks of
# 1,024 threads, runs of 16 tiles = 135,168 keys, merged through distributed shared
# memory; `x8`: clusters of 2, u32 only) first on the GPU: checks at sizes that leave
# partial and empty blocks (width forced with SORT_MERGEPATH_WIDE_MIN_PER_SM=0),
# gpu_mergepath forced, the sanitizers; then widths 16 / 8 / 4 on one host and
# s18a (run 1's build) alternated twice; ncu kernel times at 2^28.
. docs/results/lib.sh
P=/tmp/s18a
unpack h.tar.xz /tmp/bundle; unpack s18a.tar.xz $P; device_info
A=/tmp/bundle/host
date > $L/times.txt
export SORT_SYNC_LAUNCHES=1
for w in 16 8; do
  for t in u32 i32 f32; do
    [ $w = 8 ] && [ $t != u32 ] && continue
    for n in 1000 8449 135167 135168 135169 540673 3000007 16777216 16789005; do
      for o in asc desc; do
        SORT_MERGEPATH_WIDTH=$w SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 60 $A --variant mergepath --type $t --order $o --dist few-unique --n $n --check --repeat 1 --require-gpu > $L/c_${w}_${t}_${n}_$o.txt 2>&1
        echo "x$w $t $n $o rc=$? $(grep -ho 'check[^|]*' $L/c_${w}_${t}_${n}_$o.txt | head -1) $(grep -h 'mergepath ' $L/c_${w}_${t}_${n}_$o.txt | tail -1 | awk '{print $NF}')"
      done
    done
  done
done 2>&1 | tee $L/checks.txt | grep -v "rc=0" | head -20
echo "checks: $(grep -c 'rc=0' $L/checks.txt) ok of $(wc -l < $L/checks.txt)"
unset SORT_SYNC_LAUNCHES
fin
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 150 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp_forced.txt 2>&1; echo "gpu_mergepath widest forced rc=$? $(grep -h '^test result' $L/t_mp_forced.txt)"
fin
S="timeout 90 compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type u32 --n 1000003 --check --repeat 1 --require-gpu > $L/san_x16_$tool.log 2>&1; echo "x16 u32 1000003 $tool rc=$? $(grep -h 'ERROR SUMMARY' $L/san_x16_$tool.log)"
  fin
done
date >> $L/times.txt
for round in 1 2; do
  for v in s18a:$P:4 x4:/tmp/bundle:4 x8:/tmp/bundle:8 x16:/tmp/bundle:16; do
    IFS=: read name dir w <<< "$v"
    SORT_MERGEPATH_WIDTH=$w $dir/host bench --require-gpu --variants mergepath --type u32 --n 2^22,2^23,2^24,2^25,2^26,2^28 --repeat 10 > $L/k_$name$round.txt 2>&1
    echo "$name$round u32 2^22,23,24,25,26,28: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}')"
    fin
  done
done
date >> $L/times.txt
for w in 4 16; do
  SORT_MERGEPATH_WIDTH=$w ncu_times u32_28_x$w $A bench --require-gpu --variants mergepath --type u32 --n 2^28 --repeat 1; python3 docs/results/ncu_times.py $L/u32_28_x${w}_ncu.csv | grep -v "^=="; fin
done
date >> $L/times.txt; fin
