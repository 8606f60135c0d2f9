#!/bin/bash
# Session 18 run 7: where the cluster block sort's time goes, per SASS instruction (ncu
# source page with warp-stall sampling) of the committed build's x8 u32 block sort at
# 2^24, for the next session.
. docs/results/lib.sh
unpack h.tar.xz /tmp/bundle; device_info
A=/tmp/bundle/host
timeout 300 ncu --set full --import-source no --page source --print-source sass --csv -k regex:mergepath_block_sort_x8_u32 -c 1 $A bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/sass_x8_u32.csv 2> $L/sass_x8_u32.err; echo "ncu source rc=$? $(wc -c < $L/sass_x8_u32.csv) bytes"
head -c 3000 $L/sass_x8_u32.csv
xz -9 $L/sass_x8_u32.csv
timeout 120 ncu --set full --import-source no -k regex:mergepath_block_sort_x8_u32 -c 1 $A bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/ncu_bs_x8_u32.txt 2>&1; echo "ncu details rc=$?"
fin
