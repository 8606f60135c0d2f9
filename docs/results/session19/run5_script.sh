#!/bin/bash
# Session 19 run 5: the block's co-rank searches by binary lifting, each lane starting at
# its own offset modulo 32 (`d`: search::co_rank_by_steps, mergepath::search_skew(t, lo))
# against fbefb0a (`hd`), alternated twice; issue 11's table of d with CUB in the same
# call; the GPU suite on d.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; unpack hd.tar.xz /tmp/hd; device_info; cub_start
A=/tmp/bundle/host
date > $L/times.txt
bench_alternate 2 hd:/tmp/hd d:/tmp/bundle
date >> $L/times.txt
$A bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$A bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$A bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
fin
cub_run; fin
date >> $L/times.txt
timeout 240 /tmp/bundle/run-gpu-tests.sh $L/tests > $L/tests.txt 2>&1; echo "suite rc=$?"; grep -h "FAIL\|gpu-tests" $L/tests.txt
fin
date >> $L/times.txt; fin
