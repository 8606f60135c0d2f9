#!/bin/bash
# Session 13 run 4: the committed build's wide block sorts for the pair types run 1-3
# did not measure (f32, u64, i64 keys with u32 and u64 values; some of those width-4
# kernels spill), against SORT_MERGEPATH_WIDE=0, alternated twice.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
rm -rf $B; mkdir -p $B; (cd $B && xz -dc $C/h.tar.xz | tar xf - host) || { echo "unpack failed"; exit 1; }
for r in 1 2; do
  for w in 1 0; do
    for kv in "f32 u32" "u64 u32" "u64 u64" "i64 u64" "f64 u32"; do
      set -- $kv
      SORT_MERGEPATH_WIDE=$w $B/host bench-pairs --variant mergepath --type $1 --values $2 --n 2^22,2^24,2^26 --repeat 10 > $L/pairs_${1}_${2}_w${w}_r$r.txt 2>&1
      echo "w$w r$r $1+$2: $(grep -h "^$1" $L/pairs_${1}_${2}_w${w}_r$r.txt | awk '{printf "%s ", $6}')"
    done
    SORT_MERGEPATH_WIDE=$w $B/host bench --require-gpu --variants mergepath --type f32,i64,f64 --n 2^22,2^24,2^26 --repeat 10 > $L/keys_w${w}_r$r.txt 2>&1
    echo "w$w r$r keys f32/i64/f64: $(grep -h '^mergepath ' $L/keys_w${w}_r$r.txt | awk '{printf "%s ", $9}')"
  done
  fin
done
