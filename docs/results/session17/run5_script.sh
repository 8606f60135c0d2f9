#!/bin/bash
# Session 17 run 5: 8-byte keys alone at 19 (committed), 21 and 23 keys per thread
# (three hosts that differ only there; all three also carry an experimental 4-lane
# partition, SORT_MERGEPATH_PARTITION_LANES=4), alternated twice; 4 against 8 lanes
# on the 19 host; ncu kernel times of the committed kernels at 2^28 (u32, u64).
. docs/results/lib.sh
unpack hosts.tar.xz /tmp/hosts; device_info
date > $L/times.txt
for round in 1 2; do
  for it in 19 21 23; do
    /tmp/hosts/host$it bench --require-gpu --variants mergepath --type u64 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/u64_i$it$round.txt 2>&1
    echo "i$it$round u64 x 2^20,22,23,24,26,28: $(grep -h '^mergepath ' $L/u64_i$it$round.txt | awk '{printf "%s ", $9}')"
    fin
  done
  for lanes in 8 4; do
    SORT_MERGEPATH_PARTITION_LANES=$lanes /tmp/hosts/host19 bench --require-gpu --variants mergepath --type u32,u64 --n 2^26,2^28 --repeat 10 > $L/k_l$lanes$round.txt 2>&1
    SORT_MERGEPATH_PARTITION_LANES=$lanes /tmp/hosts/host19 bench-pairs --variant mergepath --type u32 --values u32 --n 2^28 --repeat 10 > $L/p_l$lanes$round.txt 2>&1
    echo "l$lanes$round u32,u64 x 2^26,28: $(grep -h '^mergepath ' $L/k_l$lanes$round.txt | awk '{printf "%s ", $9}') pairs 2^28: $(grep -h '^u32' $L/p_l$lanes$round.txt | awk '{printf "%s ", $6}')"
    fin
  done
done
date >> $L/times.txt
for t in u32 u64; do
  ncu_times ${t}_28 /tmp/hosts/host19 bench --require-gpu --variants mergepath --type $t --n 2^28 --repeat 1
  python3 docs/results/ncu_times.py $L/${t}_28_ncu.csv
done
SORT_MERGEPATH_PARTITION_LANES=4 ncu_times u64_28_l4 /tmp/hosts/host19 bench --require-gpu --variants mergepath --type u64 --n 2^28 --repeat 1
python3 docs/results/ncu_times.py $L/u64_28_l4_ncu.csv | grep partition
date >> $L/times.txt; fin
