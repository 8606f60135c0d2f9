#!/bin/bash
# Session 15 run 9: gpu_mergepath with the wide key-value block sorts' sizes added
# (3,000,017 pairs, FewUnique), on the committed build.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
rm -rf $B/*; (cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
timeout 200 $B/tests/gpu_mergepath-test > $L/gpu_mergepath.txt 2>&1; echo "gpu_mergepath rc=$? $(grep -h '^test result' $L/gpu_mergepath.txt)"
(cd $OUT && tar czf logs.tgz logs)
