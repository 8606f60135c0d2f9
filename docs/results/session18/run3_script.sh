#!/bin/bash
# Session 18 run 3: the cluster block sort's gather without a bound test per load
# (`x`: one host, widths 16 / 8 / 4 by SORT_MERGEPATH_WIDTH) against s18a (run 1's
# build) alternated twice; checks of the new gather at sizes with partial and empty
# blocks, memcheck; ncu kernel times at 2^28 (widths 8 and 16).
. docs/results/lib.sh
P=/tmp/s18a
unpack x.tar.xz /tmp/x; unpack s18a.tar.xz $P; device_info
A=/tmp/x/host
date > $L/times.txt
export SORT_SYNC_LAUNCHES=1
for w in 16 8; do
  for t in u32 f32; do
    [ $w = 8 ] && [ $t != u32 ] && continue
    for n in 8449 135169 540673 3000007 16789005; do
      for o in asc desc; do
        SORT_MERGEPATH_WIDTH=$w SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 60 $A --variant mergepath --type $t --order $o --dist few-unique --n $n --check --repeat 1 --require-gpu > $L/c_${w}_${t}_${n}_$o.txt 2>&1
        echo "x$w $t $n $o rc=$? $(grep -ho 'check[^|]*' $L/c_${w}_${t}_${n}_$o.txt | head -1)"
      done
    done
  done
done 2>&1 | tee $L/checks.txt | grep -v "rc=0" | head -20
echo "checks: $(grep -c 'rc=0.*ok' $L/checks.txt) ok of $(wc -l < $L/checks.txt)"
unset SORT_SYNC_LAUNCHES
SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 90 compute-sanitizer --error-exitcode 9 --tool memcheck $A --variant mergepath --type u32 --n 1000003 --check --repeat 1 --require-gpu > $L/san_x16_memcheck.log 2>&1; echo "x16 memcheck rc=$?"
fin
date >> $L/times.txt
for round in 1 2; do
  for v in s18a:$P:4 x4:/tmp/x:4 x8:/tmp/x:8 x16:/tmp/x:16; do
    IFS=: read name dir w <<< "$v"
    SORT_MERGEPATH_WIDTH=$w $dir/host bench --require-gpu --variants mergepath --type u32 --n 2^23,2^24,2^25,2^26,2^27,2^28 --repeat 10 > $L/k_$name$round.txt 2>&1
    echo "$name$round u32 2^23,24,25,26,27,28: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}')"
    fin
  done
done
date >> $L/times.txt
for w in 8 16; do
  SORT_MERGEPATH_WIDTH=$w ncu_times u32_28_x$w $A bench --require-gpu --variants mergepath --type u32 --n 2^28 --repeat 1; python3 docs/results/ncu_times.py $L/u32_28_x${w}_ncu.csv | grep -v "^=="; fin
done
SORT_MERGEPATH_WIDTH=16 timeout 120 ncu --set full --import-source no -k regex:mergepath_block_sort_x16_u32 -c 1 $A bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/ncu_bs_x16_u32.txt 2>&1; echo "ncu x16 rc=$?"
date >> $L/times.txt; fin
