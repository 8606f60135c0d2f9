#!/bin/bash
# Session 18 run 8: where the width-8 (cluster) block sort starts to pay against width 2
# (the fallback below 1.75 waves of width-4/8 blocks, 7.8 M keys): u32 and f32 at 4.5 M
# to 2^23 with each width forced, alternated twice (committed build a7cf315's kernels).
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; device_info
A=/tmp/bundle/host
for round in 1 2; do
  for w in 2 4 8; do
    SORT_MERGEPATH_WIDTH=$w SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $A bench --require-gpu --variants mergepath --type u32,f32 --n 4500000,5500000,6500000,7500000,8388608 --repeat 10 > $L/w${w}_$round.txt 2>&1
    echo "x$w round $round u32,f32 4.5M,5.5M,6.5M,7.5M,2^23: $(grep -h '^mergepath ' $L/w${w}_$round.txt | awk '{printf "%s ", $9}')"
  done
  $A bench --require-gpu --variants mergepath --type u32,f32 --n 4500000,5500000,6500000,7500000,8388608 --repeat 10 > $L/default_$round.txt 2>&1
  echo "default round $round: $(grep -h '^mergepath ' $L/default_$round.txt | awk '{printf "%s ", $9}')"
  fin
done
