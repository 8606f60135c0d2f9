#!/bin/bash
# Session 17 run 6: one narrowing rule for the plain and the guided search round
# (`search::narrow_after`; the merge and partition kernels' PTX changed in block order
# and register numbering only) against the committed build (c17 = 42f2b46),
# alternated twice; gpu_mergepath and memcheck on the new build; the in-merge
# co-rank threshold of 8-byte keys alone swept on c17 (tiles of 4,864).
. docs/results/lib.sh
P=/tmp/c17
unpack h.tar.xz /tmp/bundle; unpack c17.tar.xz $P; device_info
date > $L/times.txt
for round in 1 2; do
  for v in c17:$P a:/tmp/bundle; do
    IFS=: read name dir <<< "$v"
    $dir/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^24,2^28 --repeat 10 > $L/k_$name$round.txt 2>&1
    $dir/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_$name$round.txt 2>&1
    echo "$name$round u32,u64 x 2^22,24,28: $(grep -h '^mergepath ' $L/k_$name$round.txt | awk '{printf "%s ", $9}') pairs 2^24,28: $(grep -h '^u32' $L/p_$name$round.txt | awk '{printf "%s ", $6}')"
    fin
  done
done
for round in 1 2; do
  for t in 2 4 8 16; do
    SORT_MERGEPATH_IN_MERGE_PER_SM=$t $P/host bench --require-gpu --variants mergepath --type u64 --n 2^21,2^22,3000000,2^23 --repeat 10 > $L/im_$t$round.txt 2>&1
    echo "in-merge $t/SM $round u64 x 2^21,2^22,3M,2^23: $(grep -h '^mergepath ' $L/im_$t$round.txt | awk '{printf "%s ", $9}')"
  done
  fin
done
date >> $L/times.txt
timeout 200 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/t_mp.txt)"
SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 200 /tmp/bundle/tests/gpu_mergepath-test > $L/t_mp_part.txt 2>&1; echo "gpu_mergepath partition kernels rc=$? $(grep -h '^test result' $L/t_mp_part.txt)"
fin
SORT_MERGEPATH_IN_MERGE_PER_SM=0 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bundle/host --variant mergepath --type u64 --n 3000007 --check --repeat 1 --require-gpu > $L/san_u64_memcheck.log 2>&1; echo "u64 partition path memcheck rc=$?"
date >> $L/times.txt; fin
