#!/bin/bash
# Session 18 run 9: widths 2 / 4 / 8 forced between 6.5 M and 7.5 M keys (u32, f32),
# alternated twice: where the fallback to width 2 should end (run 8 left the band
# 6.7-7.2 M unmeasured). Kernels of a7cf315.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; device_info
A=/tmp/bundle/host
for round in 1 2; do
  for w in 2 4 8; do
    SORT_MERGEPATH_WIDTH=$w SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $A bench --require-gpu --variants mergepath --type u32,f32 --n 6700000,6900000,7100000,7300000 --repeat 10 > $L/w${w}_$round.txt 2>&1
    echo "x$w round $round u32,f32 6.7M,6.9M,7.1M,7.3M: $(grep -h '^mergepath ' $L/w${w}_$round.txt | awk '{printf "%s ", $9}')"
  done
  fin
done
