#!/bin/bash
# Session 17 run 2: build a = width-4 block sort for 4-byte keys alone (2 below a wave
# of them) + partition kernels with 16 lanes per co-rank (8 and 32 by knob); prev =
# main at b2a205a. Alternated twice; width 2 against 4 at the boundary sizes; ncu
# partition times at 2^28 for 8 / 16 / 32 lanes; issue 11's table and CUB in the same call.
. docs/results/lib.sh
P=/tmp/prev
unpack h.tar.xz /tmp/bundle; unpack prev.tar.xz $P; device_info; cub_start
date > $L/times.txt
A=/tmp/bundle/host
for round in 1 2; do
  $P/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_prev$round.txt 2>&1
  $P/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_prev$round.txt 2>&1
  echo "prev$round u32,u64 x 2^22,23,24,26,28: $(grep -h '^mergepath ' $L/k_prev$round.txt | awk '{printf "%s ", $9}') pairs 2^24,28: $(grep -h '^u32' $L/p_prev$round.txt | awk '{printf "%s ", $6}')"
  for lanes in 16 32 8; do
    SORT_MERGEPATH_PARTITION_LANES=$lanes $A bench --require-gpu --variants mergepath --type u32,u64 --n 2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/k_l$lanes$round.txt 2>&1
    SORT_MERGEPATH_PARTITION_LANES=$lanes $A bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/p_l$lanes$round.txt 2>&1
    echo "l$lanes$round u32,u64 x 2^22,23,24,26,28: $(grep -h '^mergepath ' $L/k_l$lanes$round.txt | awk '{printf "%s ", $9}') pairs 2^24,28: $(grep -h '^u32' $L/p_l$lanes$round.txt | awk '{printf "%s ", $6}')"
    fin
  done
  for w in 2 4; do
    SORT_MERGEPATH_WIDTH=$w $A bench --require-gpu --variants mergepath --type u32,f32 --n 4600000,5000000,6000000,2^23,2^24,2^28 --repeat 10 > $L/w$w$round.txt 2>&1
    echo "w$w$round u32,f32 x 4.6M,5M,6M,2^23,2^24,2^28: $(grep -h '^mergepath ' $L/w$w$round.txt | awk '{printf "%s ", $9}')"
  done
  fin
done
date >> $L/times.txt
for lanes in 8 16 32; do
  for t in u32 u64; do
    SORT_MERGEPATH_PARTITION_LANES=$lanes ncu_times ${t}_l$lanes $A bench --require-gpu --variants mergepath --type $t --n 2^28 --repeat 1
    echo "l$lanes $t: $(python3 docs/results/ncu_times.py $L/${t}_l${lanes}_ncu.csv 2>&1 | grep -i 'partition\|total' | tr -s ' ' | tr '\n' ' ')"
  done
done
fin
date >> $L/times.txt
$A bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
$A bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
$A bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
fin
cub_run; fin
date >> $L/times.txt; fin
