#!/bin/bash
# Session 18 run 5: the cluster round as an exchange of only what each block lacks
# (`pair_swap`, `y`) against b3ee22d (the committed gather of every element, `g`: the
# bundle's host) and s18a (width 4), alternated twice; checks of the exchange at sizes
# with partial and empty second blocks (width forced), the sanitizers; ncu times.
. docs/results/lib.sh
P=/tmp/s18a
unpack h.tar.xz /tmp/bundle; unpack s18a.tar.xz $P; unpack y.tar.xz /tmp/y; device_info
A=/tmp/y/host
date > $L/times.txt
export SORT_SYNC_LAUNCHES=1
for t in u32 i32 f32; do
  for n in 1000 8449 33792 33793 67583 67584 67585 540673 3000007 16777216 16789005; do
    for o in asc desc; do
      for d in few-unique uniform; do
        SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 60 $A --variant mergepath --type $t --order $o --dist $d --n $n --check --repeat 1 --require-gpu > $L/c_${t}_${n}_${o}_$d.txt 2>&1
        echo "$t $n $o $d rc=$? $(grep -ho 'check[^|]*' $L/c_${t}_${n}_${o}_$d.txt | head -1)"
      done
    done
  done
done 2>&1 | tee $L/checks.txt | grep -v "rc=0.*ok" | head -20
echo "checks: $(grep -c 'rc=0.*ok' $L/checks.txt) ok of $(wc -l < $L/checks.txt)"
unset SORT_SYNC_LAUNCHES
S="timeout 90 compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type u32 --n 1000003 --check --repeat 1 --require-gpu > $L/san_u32_$tool.log 2>&1; echo "u32 1000003 $tool rc=$?"
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type f32 --order desc --dist few-unique --n 100003 --check --repeat 1 --require-gpu > $L/san_f32_$tool.log 2>&1; echo "f32 desc few-unique 100003 $tool rc=$?"
  fin
done
date >> $L/times.txt
for round in 1 2; do
  for v in s18a:$P g:/tmp/bundle y:/tmp/y; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,f32 --n 2^23,2^24,2^26,2^28 --repeat 10 > $L/k_$name$round.txt 2>&1
    echo "$name$round u32,f32 2^23,24,26,28: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}')"
    fin
  done
done
date >> $L/times.txt
ncu_times u32_28 $A bench --require-gpu --variants mergepath --type u32 --n 2^28 --repeat 1; python3 docs/results/ncu_times.py $L/u32_28_ncu.csv | grep -v "^=="; fin
date >> $L/times.txt; fin
