#!/bin/bash
# Session 11 run 2: mergepath chain ticket-group sweep (run 1: groups of 1 chunk
# left half the blocks spinning; 2 chunks about even with separate launches).
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
if [ ! -x $B/host ]; then rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/b.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }; fi
for cfg in 0:1 8:4 8:8 7:8 9:2 9:4 10:2 6:16 5:32; do
  lv=${cfg%:*}; g=${cfg#*:}
  SORT_MERGEPATH_CHAIN_LEVELS=$lv SORT_MERGEPATH_CHAIN_GROUP=$g $B/host bench --require-gpu --variants mergepath --type u32 --n 2^20,2^22,2^24,2^26,2^28 --repeat 10 > $L/keys_l${lv}g${g}.txt 2>&1
  echo "l$lv g$g u32: $(grep -h '^mergepath  *u32' $L/keys_l${lv}g${g}.txt | awk '{printf "%s ", $9}')"
done
fin
