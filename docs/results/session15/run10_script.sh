#!/bin/bash
# Session 15 run 10: u64 keys' merge at 4 blocks per SM (64 registers; was 3) against the
# committed build (prev, ea3d45a), alternated twice.
set -u
C=$PWD/carry; B=/tmp/n; P=/tmp/prev; L=$OUT/logs; mkdir -p $B $P $L
export SORT_REQUIRE_GPU=1
rm -rf $B/* $P/*
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(cd $P && xz -dc $C/prev.tar.xz | tar xf -) || { echo "unpack prev failed"; exit 1; }
for round in 1 2; do
  for v in new:$B prev:$P; do
    name=${v%%:*}; h=${v#*:}/host
    $h bench --require-gpu --variants mergepath --type u64 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/${name}$round.txt 2>&1
    echo "$name$round u64: $(grep -h '^mergepath ' $L/${name}$round.txt | awk '{printf "%s ", $9}')"
  done
done
(cd $OUT && tar czf logs.tgz logs)
